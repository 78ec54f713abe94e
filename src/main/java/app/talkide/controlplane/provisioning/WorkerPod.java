package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where and how a tenant-environment's worker pod runs: what operators set per node pool and per trust level
 * (a gVisor or Kata {@code runtimeClassName} for agent-written code), and the pod's local-disk budget. Every
 * field is optional; in a tenant-environment's desired state an unset field follows the configured default
 * ({@code talkide.provisioning.defaults.pod.*}, set by the chart's {@code provisioning.workerPod}), field by
 * field, and an empty list or map there means "none" rather than "the default".
 *
 * @param imagePullSecrets Secrets in the tenant namespace for pulling the worker image from a private registry
 * @param nodeSelector node labels the worker pod must run on
 * @param tolerations taints of the nodes it may run on (e.g. a dedicated pool for untrusted code)
 * @param affinity node and pod (anti-)affinity, as in a pod spec
 * @param priorityClassName the pod's PriorityClass
 * @param runtimeClassName the RuntimeClass for the pod's sandbox (gVisor, Kata); unset: the node's default
 * @param ephemeralStorageRequest local disk requested for the container (its writable layers, logs,
 *     {@code /tmp} and {@code HOME})
 * @param ephemeralStorageLimit local disk after which the kubelet evicts the pod
 * @param tmpSizeLimit size limit of each of the two scratch volumes ({@code /tmp} and {@code HOME}, which a
 *     read-only root filesystem needs)
 * @param probeTimeoutSeconds how long a startup, liveness or readiness probe may take before it counts as
 *     failed
 */
public record WorkerPod(
        @Nullable List<String> imagePullSecrets,
        @Nullable Map<String, String> nodeSelector,
        @Nullable List<Toleration> tolerations,
        @Nullable Affinity affinity,
        @Nullable String priorityClassName,
        @Nullable String runtimeClassName,
        // The defaults apply where Spring binds the configured defaults; the admin API's JSON leaves unset null.
        @DefaultValue("512Mi") @Nullable String ephemeralStorageRequest,
        @DefaultValue("4Gi") @Nullable String ephemeralStorageLimit,
        @DefaultValue("1Gi") @Nullable String tmpSizeLimit,
        @DefaultValue("3") @Nullable Integer probeTimeoutSeconds) {

    public static final WorkerPod UNSET = new WorkerPod(null, null, null, null, null, null, null, null, null, null);

    /** This one with every unset field taken from {@code defaults}. */
    public WorkerPod orElse(WorkerPod defaults) {
        return new WorkerPod(
                imagePullSecrets != null ? imagePullSecrets : defaults.imagePullSecrets,
                nodeSelector != null ? nodeSelector : defaults.nodeSelector,
                tolerations != null ? tolerations : defaults.tolerations,
                affinity != null ? affinity : defaults.affinity,
                priorityClassName != null ? priorityClassName : defaults.priorityClassName,
                runtimeClassName != null ? runtimeClassName : defaults.runtimeClassName,
                ephemeralStorageRequest != null ? ephemeralStorageRequest : defaults.ephemeralStorageRequest,
                ephemeralStorageLimit != null ? ephemeralStorageLimit : defaults.ephemeralStorageLimit,
                tmpSizeLimit != null ? tmpSizeLimit : defaults.tmpSizeLimit,
                probeTimeoutSeconds != null ? probeTimeoutSeconds : defaults.probeTimeoutSeconds);
    }

    public List<String> imagePullSecretsOrNone() {
        return imagePullSecrets == null ? List.of() : imagePullSecrets;
    }

    public Map<String, String> nodeSelectorOrNone() {
        return nodeSelector == null ? Map.of() : nodeSelector;
    }

    public List<Toleration> tolerationsOrNone() {
        return tolerations == null ? List.of() : tolerations;
    }
}
