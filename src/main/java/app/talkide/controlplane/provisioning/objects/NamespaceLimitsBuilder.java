package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ProvisioningProperties.Quota;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import java.util.Map;

/**
 * ResourceQuota and LimitRange {@code talkide-limits}: what the worker and its build Jobs together may use,
 * and the requests and limits a Job container gets when it states none (a quota on CPU and memory makes the
 * API server refuse pods without them).
 */
public final class NamespaceLimitsBuilder {

    public static final String NAME = "talkide-limits";

    public static ResourceQuota resourceQuota(TenantEnvironmentId id, DesiredState desired) {
        Quota quota = desired.quota();
        return new ResourceQuotaBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, NAME))
                .withNewSpec()
                .withHard(Map.of(
                        "requests.cpu", new Quantity(quota.cpu()),
                        "limits.cpu", new Quantity(quota.cpu()),
                        "requests.memory", new Quantity(quota.memory()),
                        "limits.memory", new Quantity(quota.memory()),
                        "requests.storage", new Quantity(quota.storage()),
                        "pods", new Quantity(String.valueOf(quota.pods())),
                        "count/jobs.batch", new Quantity(String.valueOf(quota.jobs()))))
                .endSpec()
                .build();
    }

    public static LimitRange limitRange(TenantEnvironmentId id, DesiredState desired, Resources containerDefaults) {
        return new LimitRangeBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, NAME))
                .withNewSpec()
                .addNewLimit()
                .withType("Container")
                .withDefaultRequest(Map.of(
                        "cpu", new Quantity(containerDefaults.cpuRequest()),
                        "memory", new Quantity(containerDefaults.memoryRequest())))
                .withDefault(Map.of(
                        "cpu", new Quantity(containerDefaults.cpuLimit()),
                        "memory", new Quantity(containerDefaults.memoryLimit())))
                .endLimit()
                .endSpec()
                .build();
    }

    private NamespaceLimitsBuilder() {}
}
