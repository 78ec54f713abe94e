package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import app.talkide.controlplane.provisioning.RestrictedSecurityContexts;
import app.talkide.controlplane.provisioning.WorkerMcpConfig;
import app.talkide.controlplane.provisioning.WorkerPod;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Deployment {@code talkide-worker}: one worker pod with the environment of the worker contract,
 * its tokens from the Secret mounted as files (re-read by the worker when the kubelet updates them), its sessions
 * on the shared volume, locked down (non-root, read-only root filesystem, no privilege escalation, no
 * capabilities). The pod-template annotation {@link ManagedNames#ROLLED_AT_ANNOTATION} still rolls it when
 * asked.
 * Rolling updates start the new pod before stopping the old one, so token rotation never leaves a gap.
 */
public final class WorkerDeploymentBuilder {

    public static final String CONTAINER = "worker";
    public static final String CONFIG_DIR = "/data/claude";
    /**
     * The agent's working tree: the session volume's {@code workspace} directory (where it always was), mounted
     * a second time outside {@code CLAUDE_CONFIG_DIR}, so the tools' directory holds no session (the worker
     * refuses a working tree inside it; docs/security.md).
     */
    public static final String WORKSPACE_DIR = "/data/workspace";

    static final String WORKSPACE_SUBPATH = "workspace";
    /** The Secret as files, re-read by the worker when the kubelet updates them; never in the environment. */
    public static final String SECRETS_DIR = "/var/run/secrets/talkide";

    static final String SECRET_VOLUME = "worker-token";

    /**
     * The MCP server list's Secret as a file, mounted whole (never with {@code subPath}, which the kubelet does
     * not update): the worker re-reads it when it changes and applies it to the turns that start after.
     */
    public static final String MCP_DIR = "/var/run/secrets/talkide-mcp";

    static final String MCP_VOLUME = "worker-mcp";
    /** Owner root, group the pod's fsGroup (the worker): read-only for the worker, nothing for others. */
    static final int SECRET_FILE_MODE = 0440;
    /**
     * Writable scratch space under the read-only root filesystem: Node, git and the engine write to
     * {@code TMPDIR} and {@code HOME} (caches, git config), each an {@code emptyDir} with a size limit.
     */
    public static final String TMP_DIR = "/tmp";

    public static final String HOME_DIR = "/home/talkide";
    static final String TMP_VOLUME = "tmp";
    static final String HOME_VOLUME = "home";

    public static Deployment build(
            TenantEnvironmentId id, DesiredState desired, ProvisioningProperties properties, String rolledAt) {
        WorkerPod pod = desired.pod();
        int probeTimeout = pod.probeTimeoutSeconds() == null ? 1 : pod.probeTimeoutSeconds();
        Map<String, String> podLabels = new LinkedHashMap<>(ManagedMetadata.labels(id, desired));
        podLabels.putAll(ManagedMetadata.workerSelector(id));
        var metadata = ManagedMetadata.of(id, desired, ManagedNames.WORKER);
        String placement = placement(pod);
        if (placement != null) {
            Map<String, String> annotations =
                    new LinkedHashMap<>(metadata.getAnnotations() == null ? Map.of() : metadata.getAnnotations());
            annotations.put(ManagedNames.PLACEMENT_ANNOTATION, placement);
            metadata.setAnnotations(annotations);
        }
        return new DeploymentBuilder()
                .withMetadata(metadata)
                .withNewSpec()
                .withReplicas(1)
                .withRevisionHistoryLimit(3)
                .withNewSelector()
                .withMatchLabels(ManagedMetadata.workerSelector(id))
                .endSelector()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0))
                .withMaxSurge(new IntOrString(1))
                .endRollingUpdate()
                .endStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels)
                .withAnnotations(Map.of(ManagedNames.ROLLED_AT_ANNOTATION, rolledAt))
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(ManagedNames.WORKER)
                // Placement and sandbox; what others add survives, what we drop goes (StalePlacement).
                .withImagePullSecrets(pod.imagePullSecretsOrNone().stream()
                        .map(LocalObjectReference::new)
                        .toList())
                .withNodeSelector(pod.nodeSelectorOrNone().isEmpty() ? null : new TreeMap<>(pod.nodeSelectorOrNone()))
                .withTolerations(pod.tolerationsOrNone())
                .withAffinity(pod.affinity())
                .withPriorityClassName(pod.priorityClassName())
                .withRuntimeClassName(pod.runtimeClassName())
                // No Kubernetes credentials in a pod that runs agent-written code (docs/builds.md).
                .withAutomountServiceAccountToken(false)
                .withSecurityContext(RestrictedSecurityContexts.workerPod(properties.workerSeccompProfile()))
                .addNewContainer()
                .withName(CONTAINER)
                .withImage(desired.workerImage())
                .addNewPort()
                .withName("http")
                .withContainerPort(ManagedNames.WORKER_PORT)
                .withProtocol("TCP")
                .endPort()
                .withEnv(environment(id, properties))
                .withResources(resources(desired.resources(), pod))
                .withStartupProbe(probe("/healthz", 30, probeTimeout))
                .withLivenessProbe(probe("/healthz", 3, probeTimeout))
                .withReadinessProbe(probe("/readyz", 3, probeTimeout))
                .withSecurityContext(RestrictedSecurityContexts.container())
                .addNewVolumeMount()
                .withName(ManagedNames.SESSIONS_VOLUME)
                .withMountPath(CONFIG_DIR)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(ManagedNames.SESSIONS_VOLUME)
                .withMountPath(WORKSPACE_DIR)
                .withSubPath(WORKSPACE_SUBPATH)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(SECRET_VOLUME)
                .withMountPath(SECRETS_DIR)
                .withReadOnly(true)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(MCP_VOLUME)
                .withMountPath(MCP_DIR)
                .withReadOnly(true)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(TMP_VOLUME)
                .withMountPath(TMP_DIR)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(HOME_VOLUME)
                .withMountPath(HOME_DIR)
                .endVolumeMount()
                .endContainer()
                .addNewVolume()
                .withName(ManagedNames.SESSIONS_VOLUME)
                // No readOnly: false: the API server drops false booleans here, and the pass would see drift.
                .withNewPersistentVolumeClaim()
                .withClaimName(ManagedNames.SESSIONS_VOLUME)
                .endPersistentVolumeClaim()
                .endVolume()
                .addNewVolume()
                .withName(SECRET_VOLUME)
                .withNewSecret()
                .withSecretName(ManagedNames.WORKER_SECRET)
                .withDefaultMode(SECRET_FILE_MODE)
                .endSecret()
                .endVolume()
                .addNewVolume()
                .withName(MCP_VOLUME)
                .withNewSecret()
                .withSecretName(ManagedNames.WORKER_MCP_SECRET)
                .withDefaultMode(SECRET_FILE_MODE)
                .endSecret()
                .endVolume()
                // A read-only root filesystem still needs somewhere for Node and git to write scratch files;
                // bounded, or one runaway build fills the node's disk and the kubelet evicts its neighbours.
                .addNewVolume()
                .withName(TMP_VOLUME)
                .withNewEmptyDir()
                .withSizeLimit(quantity(pod.tmpSizeLimit()))
                .endEmptyDir()
                .endVolume()
                .addNewVolume()
                .withName(HOME_VOLUME)
                .withNewEmptyDir()
                .withSizeLimit(quantity(pod.tmpSizeLimit()))
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /**
     * The placement this pod spec sets, as JSON ({@code null}: none): the record that lets the reconciler take
     * out what it set before and no longer wants, without touching what admission policies added.
     */
    static @Nullable String placement(WorkerPod pod) {
        Map<String, Object> placement = new TreeMap<>();
        if (!pod.imagePullSecretsOrNone().isEmpty()) {
            placement.put(
                    "imagePullSecrets",
                    pod.imagePullSecretsOrNone().stream()
                            .map(LocalObjectReference::new)
                            .toList());
        }
        if (!pod.nodeSelectorOrNone().isEmpty()) {
            placement.put("nodeSelector", new TreeMap<>(pod.nodeSelectorOrNone()));
        }
        if (!pod.tolerationsOrNone().isEmpty()) {
            placement.put("tolerations", pod.tolerationsOrNone());
        }
        if (pod.affinity() != null) {
            placement.put("affinity", pod.affinity());
        }
        if (pod.priorityClassName() != null) {
            placement.put("priorityClassName", pod.priorityClassName());
        }
        if (pod.runtimeClassName() != null) {
            placement.put("runtimeClassName", pod.runtimeClassName());
        }
        return placement.isEmpty() ? null : JSON.asJson(placement);
    }

    /** The worker contract's environment (docs/worker-contract.md); names as the reference worker reads them. */
    static List<EnvVar> environment(TenantEnvironmentId id, ProvisioningProperties properties) {
        return List.of(
                value("TALKIDE_GATEWAY_BASE_URL", properties.gatewayBaseUrl().toString()),
                value("TALKIDE_CONTROL_PLANE_URL", properties.controlPlaneUrl().toString()),
                // The identity token and command keys as files (WorkerSecretKeys names them): a variable stays
                // readable in /proc/<pid>/environ by every process of the worker's uid, Mara's tools included.
                value("TALKIDE_WORKER_SECRETS_DIR", SECRETS_DIR),
                // Header values are credentials: the worker denies this directory to every tool, like the above.
                value("TALKIDE_WORKER_MCP_CONFIG", MCP_DIR + "/" + WorkerMcpConfig.FILE_NAME),
                // Each engine in one bubblewrap sandbox with the pod's /proc bound, not mounted: what a pod
                // without CAP_SYS_ADMIN allows (docs/security.md).
                value("TALKIDE_WORKER_SANDBOX", "engine-nested"),
                value("CLAUDE_CONFIG_DIR", CONFIG_DIR),
                value("TALKIDE_WORKSPACE_DIR", WORKSPACE_DIR),
                value("HOME", HOME_DIR),
                value("TMPDIR", TMP_DIR),
                value("TALKIDE_TENANT", id.tenant()),
                value("TALKIDE_ENV", id.env()),
                value("TALKIDE_WORKER_PORT", String.valueOf(ManagedNames.WORKER_PORT)));
    }

    static ResourceRequirements resources(Resources resources, WorkerPod pod) {
        ResourceRequirementsBuilder requirements = new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(resources.cpuRequest()))
                .addToRequests("memory", new Quantity(resources.memoryRequest()))
                .addToLimits("cpu", new Quantity(resources.cpuLimit()))
                .addToLimits("memory", new Quantity(resources.memoryLimit()));
        if (pod.ephemeralStorageRequest() != null) {
            requirements.addToRequests(EPHEMERAL_STORAGE, new Quantity(pod.ephemeralStorageRequest()));
        }
        if (pod.ephemeralStorageLimit() != null) {
            requirements.addToLimits(EPHEMERAL_STORAGE, new Quantity(pod.ephemeralStorageLimit()));
        }
        return requirements.build();
    }

    private static final String EPHEMERAL_STORAGE = "ephemeral-storage";

    private static @Nullable Quantity quantity(@Nullable String value) {
        return value == null ? null : new Quantity(value);
    }

    /** The timeout is stated even where it is Kubernetes' default (1 s), so the API server adds nothing. */
    private static Probe probe(String path, int failureThreshold, int timeoutSeconds) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(new IntOrString("http"))
                .endHttpGet()
                .withPeriodSeconds(5)
                .withTimeoutSeconds(timeoutSeconds)
                .withFailureThreshold(failureThreshold)
                .build();
    }

    private static EnvVar value(String name, String value) {
        return new EnvVarBuilder().withName(name).withValue(value).build();
    }

    private WorkerDeploymentBuilder() {}
}
