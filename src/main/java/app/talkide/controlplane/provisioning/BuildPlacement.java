package app.talkide.controlplane.provisioning;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where a tenant-environment's build pods run: its part of the build node pool. Every field is optional; in
 * a tenant-environment's desired state an unset field follows the build defaults
 * ({@code talkide.builds.placement.*}, set by the chart's {@code builds}), field by field, and an empty list or
 * map means "none" rather than "the default". Read for every new build Job, so a change reaches the next build
 * and never a running one.
 *
 * @param nodeSelector node labels a build pod must run on
 * @param requiredNodeLabels node affinity: each label must have one of the listed values
 * @param tolerations taints of the nodes build pods may run on
 */
public record BuildPlacement(
        @Nullable Map<String, String> nodeSelector,
        @Nullable Map<String, List<String>> requiredNodeLabels,
        @Nullable List<Toleration> tolerations) {

    public static final BuildPlacement UNSET = new BuildPlacement(null, null, null);

    /** This one with every unset field taken from {@code defaults}. */
    public BuildPlacement orElse(BuildPlacement defaults) {
        return new BuildPlacement(
                nodeSelector != null ? nodeSelector : defaults.nodeSelector,
                requiredNodeLabels != null ? requiredNodeLabels : defaults.requiredNodeLabels,
                tolerations != null ? tolerations : defaults.tolerations);
    }

    public Map<String, String> nodeSelectorOrNone() {
        return nodeSelector == null ? Map.of() : nodeSelector;
    }

    public Map<String, List<String>> requiredNodeLabelsOrNone() {
        return requiredNodeLabels == null ? Map.of() : requiredNodeLabels;
    }

    public List<Toleration> tolerationsOrNone() {
        return tolerations == null ? List.of() : tolerations;
    }
}
