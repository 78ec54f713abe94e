package app.talkide.controlplane.provisioning;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How tenant-environments are provisioned in Kubernetes ({@code talkide.provisioning.*}); used when
 * {@code talkide.worker.runtime=kubernetes}, while the desired-state API uses the defaults and the reserved
 * names in every mode.
 *
 * @param enabled whether this control plane reconciles tenant-environments into the cluster (the Helm chart
 *     sets it from {@code provisioning.enabled}, together with the ClusterRole it needs)
 * @param controlPlaneNamespace the namespace the control plane runs in: reserved, and the only namespace
 *     from which workers accept connections
 * @param controlPlanePodLabels labels of the control plane's pods; with the namespace, the only source the
 *     worker's NetworkPolicy admits
 * @param reservedNamespaces namespaces a tenant-environment may never be, besides the control plane's own
 *     and every {@code kube-*} namespace
 * @param gatewayBaseUrl the control plane's base URL as workers reach it, for the Anthropic gateway
 *     ({@code TALKIDE_GATEWAY_BASE_URL})
 * @param controlPlaneUrl the control plane's base URL as workers reach it, for the mint endpoint and reports
 *     ({@code TALKIDE_CONTROL_PLANE_URL})
 * @param deprovisionTimeout how long one deprovisioning pass waits for the namespace to disappear before it
 *     reports what holds it and leaves the rest to the next pass
 * @param defaults the desired state of a tenant-environment whose own leaves a field unset
 * @param jobContainerDefaults requests and limits the namespace's LimitRange gives containers that state
 *     none (the worker's build Jobs)
 * @param tenantAccess how the control plane gets its rights inside each tenant namespace
 * @param workerEgress where workers may connect besides the control plane and their allow-list
 * @param sessionVolumeBindTimeout how long a new session volume may stay {@code Pending} before the
 *     tenant-environment shows {@code DEGRADED} with reason {@code session-volume-unbound}
 * @param workerSeccompProfile a Localhost seccomp profile (relative to the kubelet's seccomp directory,
 *     present on every node) that allows the namespace syscalls bubblewrap needs: the worker's Bash sandbox
 *     (docs/security.md). Unset: RuntimeDefault, under which the sandbox cannot start and every
 *     turn that runs Bash fails closed
 */
@Validated
@ConfigurationProperties("talkide.provisioning")
public record ProvisioningProperties(
        @DefaultValue("true") boolean enabled,
        @NotBlank @DefaultValue("talkide") String controlPlaneNamespace,
        @NotNull @DefaultValue Map<String, String> controlPlanePodLabels,

        @NotNull @DefaultValue({"default", "kube-system", "kube-public", "kube-node-lease"})
        List<String> reservedNamespaces,

        @NotNull @DefaultValue("http://talkide-control-plane.talkide.svc.cluster.local:8080")
        URI gatewayBaseUrl,

        @NotNull @DefaultValue("http://talkide-control-plane.talkide.svc.cluster.local:8080")
        URI controlPlaneUrl,

        @NotNull @DefaultValue("30s") Duration deprovisionTimeout,
        @Valid @DefaultValue Defaults defaults,
        @Valid @DefaultValue Resources jobContainerDefaults,
        @Valid @DefaultValue TenantAccess tenantAccess,
        @Valid @DefaultValue WorkerEgress workerEgress,
        @NotNull @DefaultValue("2m") Duration sessionVolumeBindTimeout,
        @Nullable String workerSeccompProfile) {

    public ProvisioningProperties {
        if (controlPlanePodLabels.isEmpty()) {
            controlPlanePodLabels = Map.of("app.kubernetes.io/name", "talkide-control-plane");
        }
    }

    /**
     * What every worker namespace's NetworkPolicy lets out, besides the control plane's pods and the
     * tenant-environment's own allow-list. Nothing else: no other service, no Internet, never link-local.
     *
     * @param dnsNamespace namespace of the cluster DNS
     * @param dnsPodLabels labels of the cluster DNS pods (port 53, UDP and TCP)
     * @param apiServerCidrs the API server's addresses, for the worker's build Jobs (ports 443 and 6443); the
     *     {@code kubernetes} Service's ClusterIP is rewritten to these before policies apply. Empty: none
     */
    public record WorkerEgress(
            @NotBlank @DefaultValue("kube-system") String dnsNamespace,
            @NotNull @DefaultValue Map<String, String> dnsPodLabels,
            @NotNull @DefaultValue List<String> apiServerCidrs) {

        public WorkerEgress {
            if (dnsPodLabels.isEmpty()) {
                dnsPodLabels = Map.of("k8s-app", "kube-dns");
            }
        }
    }

    /**
     * The control plane holds almost nothing cluster-wide: in each tenant namespace it creates a RoleBinding
     * that grants its own ServiceAccount a fixed ClusterRole the Helm chart ships (docs/provisioning.md, "RBAC
     * of the control plane").
     *
     * @param clusterRole the ClusterRole bound in every tenant namespace (the chart's {@code …-tenant})
     * @param serviceAccount the control plane's ServiceAccount, in {@code control-plane-namespace}
     */
    public record TenantAccess(
            @NotBlank @DefaultValue("talkide-control-plane-tenant")
            String clusterRole,

            @NotBlank @DefaultValue("talkide-control-plane") String serviceAccount) {}

    /**
     * @param workerImage the worker container image
     * @param resources the worker container's requests and limits
     * @param storageClass storage class of the session volume (ReadWriteMany, e.g. NFS); unset means the
     *     cluster's default class
     * @param storageSize size of the session volume
     * @param quota the namespace's ResourceQuota (the worker and its build Jobs together)
     * @param pod the worker pod's placement, sandbox, local disk and probe timeout
     */
    public record Defaults(
            // Pinned, never "latest": pods of one Deployment must run the same code (DesiredStateValidator).
            @NotBlank @DefaultValue("registry.example.com/talkide/worker:0.1.0")
            String workerImage,

            @Valid @DefaultValue Resources resources,
            @Nullable String storageClass,
            @NotBlank @DefaultValue("10Gi") String storageSize,
            @Valid @DefaultValue Quota quota,
            @DefaultValue WorkerPod pod) {}

    /**
     * @param cpuRequest CPU requested
     * @param memoryRequest memory requested
     * @param cpuLimit CPU limit
     * @param memoryLimit memory limit
     */
    public record Resources(
            @NotBlank @DefaultValue("250m") String cpuRequest,
            @NotBlank @DefaultValue("512Mi") String memoryRequest,
            @NotBlank @DefaultValue("2") String cpuLimit,
            @NotBlank @DefaultValue("2Gi") String memoryLimit) {}

    /**
     * @param cpu total CPU the namespace's pods may request and be limited to
     * @param memory total memory the namespace's pods may request and be limited to
     * @param storage total storage its volume claims may request
     * @param pods how many pods may exist at once
     * @param jobs how many Jobs may exist at once
     */
    public record Quota(
            @NotBlank @DefaultValue("8") String cpu,
            @NotBlank @DefaultValue("16Gi") String memory,
            @NotBlank @DefaultValue("50Gi") String storage,
            @Min(1) @DefaultValue("20") int pods,
            @Min(1) @DefaultValue("10") int jobs) {}
}
