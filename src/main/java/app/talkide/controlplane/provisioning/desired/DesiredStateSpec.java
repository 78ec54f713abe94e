package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Quota;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import app.talkide.controlplane.provisioning.WorkerPod;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A tenant-environment's desired state as an operator sets it through the admin API: every field optional,
 * an unset one follows the configured default (so changing a default reaches every tenant-environment that
 * did not choose otherwise). {@code resources} and {@code quota} are set as a whole; {@code egress} (the
 * worker's allow-list beyond DNS and the control plane) has no default: unset means none.
 * {@code buildPlacement} is filled in by the build feature from its own defaults when it creates a Job.
 */
public record DesiredStateSpec(
        @Nullable String workerImage,
        @Nullable Resources resources,
        @Nullable String storageClass,
        @Nullable String storageSize,
        @Nullable Quota quota,
        @Nullable Map<String, String> extraLabels,
        @Nullable List<EgressRule> egress,
        @Nullable WorkerPod pod,
        @Nullable BuildPlacement buildPlacement) {

    public static final DesiredStateSpec DEFAULTS = new DesiredStateSpec(null, null, null, null, null, null, null);

    /** Without build placement: builds follow the build defaults. */
    public DesiredStateSpec(
            @Nullable String workerImage,
            @Nullable Resources resources,
            @Nullable String storageClass,
            @Nullable String storageSize,
            @Nullable Quota quota,
            @Nullable Map<String, String> extraLabels,
            @Nullable List<EgressRule> egress,
            @Nullable WorkerPod pod) {
        this(workerImage, resources, storageClass, storageSize, quota, extraLabels, egress, pod, null);
    }

    /** Without pod settings: the worker pod follows the defaults. */
    public DesiredStateSpec(
            @Nullable String workerImage,
            @Nullable Resources resources,
            @Nullable String storageClass,
            @Nullable String storageSize,
            @Nullable Quota quota,
            @Nullable Map<String, String> extraLabels,
            @Nullable List<EgressRule> egress) {
        this(workerImage, resources, storageClass, storageSize, quota, extraLabels, egress, null, null);
    }

    /** This spec with other pod settings (stored in their own column, see {@code DesiredStateRepository}). */
    public DesiredStateSpec withPod(@Nullable WorkerPod pod) {
        return new DesiredStateSpec(
                workerImage, resources, storageClass, storageSize, quota, extraLabels, egress, pod, buildPlacement);
    }

    /** This spec with another build placement (stored in its own column, see {@code DesiredStateRepository}). */
    public DesiredStateSpec withBuildPlacement(@Nullable BuildPlacement buildPlacement) {
        return new DesiredStateSpec(
                workerImage, resources, storageClass, storageSize, quota, extraLabels, egress, pod, buildPlacement);
    }

    /** This spec with every unset field taken from the configured defaults. */
    public DesiredState resolve(ProvisioningProperties properties) {
        ProvisioningProperties.Defaults defaults = properties.defaults();
        return new DesiredState(
                Objects.requireNonNullElse(workerImage, defaults.workerImage()),
                Objects.requireNonNullElse(resources, defaults.resources()),
                storageClass != null ? storageClass : defaults.storageClass(),
                Objects.requireNonNullElse(storageSize, defaults.storageSize()),
                Objects.requireNonNullElse(quota, defaults.quota()),
                extraLabels == null ? Map.of() : extraLabels,
                egress == null ? List.of() : egress,
                (pod == null ? WorkerPod.UNSET : pod).orElse(defaults.pod()),
                List.of());
    }
}
