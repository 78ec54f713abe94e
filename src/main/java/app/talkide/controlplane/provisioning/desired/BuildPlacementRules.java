package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.BuildPlacement;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Refuses build placement the API server would refuse when the leader creates a build Job (the build would
 * then fail at once, long after the operator set it), each with the field to blame. Tolerations follow the
 * worker pod's rules.
 */
final class BuildPlacementRules {

    /** Checks what is set; unset fields follow the build defaults. */
    static void validate(BuildPlacement placement) {
        if (placement.nodeSelector() != null) {
            String problem = LabelRules.syntaxProblem(placement.nodeSelector());
            if (problem != null) {
                throw new InvalidDesiredState("buildPlacement.nodeSelector", "buildPlacement.nodeSelector: " + problem);
            }
        }
        Map<String, List<String>> required = placement.requiredNodeLabelsOrNone();
        if (required.size() > WorkerPodRules.MAX_ENTRIES) {
            throw new InvalidDesiredState(
                    "buildPlacement.requiredNodeLabels",
                    "buildPlacement.requiredNodeLabels: at most " + WorkerPodRules.MAX_ENTRIES + " labels");
        }
        required.forEach(BuildPlacementRules::requiredNodeLabel);
        List<Toleration> tolerations = placement.tolerationsOrNone();
        WorkerPodRules.bounded("buildPlacement.tolerations", tolerations);
        for (int i = 0; i < tolerations.size(); i++) {
            WorkerPodRules.toleration("buildPlacement.tolerations[" + i + "]", tolerations.get(i));
        }
    }

    /** One node affinity requirement {@code key In values}: the scheduler needs at least one value. */
    private static void requiredNodeLabel(String key, @Nullable List<String> values) {
        String problem = LabelRules.syntaxProblem(Map.of(key, ""));
        if (problem == null && (values == null || values.isEmpty() || values.size() > WorkerPodRules.MAX_ENTRIES)) {
            problem = "each label needs 1 to " + WorkerPodRules.MAX_ENTRIES + " values";
        }
        for (int i = 0; problem == null && i < values.size(); i++) {
            String value = values.get(i);
            problem = value == null ? "values must not be null" : LabelRules.syntaxProblem(Map.of(key, value));
        }
        if (problem != null) {
            throw new InvalidDesiredState(
                    "buildPlacement.requiredNodeLabels", "buildPlacement.requiredNodeLabels: " + problem);
        }
    }

    private BuildPlacementRules() {}
}
