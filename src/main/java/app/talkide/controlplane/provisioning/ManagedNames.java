package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.Map;

/**
 * Names and labels of what the control plane creates for a tenant-environment, in one place so the
 * builders, the reconciler, the readiness informer and token rotation always agree.
 */
public final class ManagedNames {

    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "talkide-control-plane";
    public static final String TENANT_LABEL = "talkide.app/tenant";
    public static final String ENV_LABEL = "talkide.app/env";

    public static final String WORKER = "talkide-worker";
    /** RoleBinding that gives the control plane its rights inside the tenant namespace. */
    public static final String CONTROL_PLANE_ACCESS = "talkide-control-plane";

    /** The worker Secret; its keys are {@code workercontract.WorkerSecretKeys}. */
    public static final String WORKER_SECRET = "talkide-worker-token";

    /**
     * The worker's operator-listed MCP servers ({@link WorkerMcpConfig}): a Secret of its own, since header
     * values carry credentials, and apart from the token Secret, since a change must not roll the worker.
     */
    public static final String WORKER_MCP_SECRET = "talkide-worker-mcp";

    public static final String SESSIONS_VOLUME = "claude-sessions";
    public static final int WORKER_PORT = 8080;

    /** Annotation listing the label keys that came from the desired state's extra labels (comma-separated). */
    public static final String EXTRA_LABELS_ANNOTATION = "talkide.app/extra-labels";

    /**
     * Annotation on the worker Deployment recording the pod placement the control plane set (JSON), so a
     * setting taken out of the desired state is removed while what admission policies add stays.
     */
    public static final String PLACEMENT_ANNOTATION = "talkide.app/placement";

    /** Pod-template annotation whose change rolls the worker Deployment (e.g. after token rotation). */
    public static final String ROLLED_AT_ANNOTATION = "talkide.app/rolled-at";

    private ManagedNames() {}

    /** The namespace {@code {tenant}-{env}}; {@link TenantEnvironmentId} already keeps it a DNS-1123 label. */
    public static String namespaceOf(TenantEnvironmentId id) {
        return id.namespace();
    }

    /** Labels every managed object carries; selectors and the foreign-namespace check rely on them. */
    public static Map<String, String> labelsOf(TenantEnvironmentId id) {
        return Map.of(
                MANAGED_BY_LABEL,
                MANAGED_BY,
                TENANT_LABEL,
                id.tenant(),
                ENV_LABEL,
                id.env(),
                "app.kubernetes.io/part-of",
                "talkide");
    }
}
