package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;

/**
 * The worker's identity in the cluster: ServiceAccount {@code talkide-worker}, with no rights and no token
 * in the pod ({@code automountServiceAccountToken: false} here and on the pod). The worker runs
 * agent-written code, so it holds no Kubernetes credentials: builds are Jobs the control plane runs on its
 * request (docs/builds.md). Earlier releases gave it a Role {@code talkide-worker} to run Jobs itself; the
 * apply step deletes that Role and its RoleBinding ({@link #RETIRED_RBAC}).
 */
public final class WorkerAccessBuilder {

    /** Name of the worker Role and RoleBinding earlier releases created; removed where they still exist. */
    public static final String RETIRED_RBAC = ManagedNames.WORKER;

    public static ServiceAccount serviceAccount(TenantEnvironmentId id, DesiredState desired) {
        return new ServiceAccountBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .withAutomountServiceAccountToken(false)
                .build();
    }

    private WorkerAccessBuilder() {}
}
