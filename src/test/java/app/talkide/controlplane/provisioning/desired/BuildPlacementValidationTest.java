package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.WorkerPodBinding;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Build placement the API server would refuse for a build Job is refused when it is set, naming the field. */
class BuildPlacementValidationTest {

    @Test
    void aFullySetPlacementWithWellKnownNodeLabelsIsAccepted() {
        BuildPlacement placement = new BuildPlacement(
                Map.of("kubernetes.io/arch", "amd64", "pool", "builds"),
                Map.of("topology.kubernetes.io/zone", List.of("eu-1a", "eu-1b")),
                List.of(WorkerPodBinding.toleration(
                        "{\"key\":\"talkide.app/builds\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}")));
        assertThatCode(() -> BuildPlacementRules.validate(placement)).doesNotThrowAnyException();
        assertThatCode(() -> BuildPlacementRules.validate(BuildPlacement.UNSET)).doesNotThrowAnyException();
        assertThatCode(() -> BuildPlacementRules.validate(new BuildPlacement(Map.of(), Map.of(), List.of())))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"key\":\"builds\",\"effect\":\"Sometimes\"}                         | buildPlacement.tolerations[0].effect",
                "{\"key\":\"builds\",\"operator\":\"Maybe\"}                           | buildPlacement.tolerations[0].operator",
                "{\"key\":\"builds\",\"effect\":\"NoSchedule\",\"tolerationSeconds\":5} | buildPlacement.tolerations[0].tolerationSeconds",
                "{\"key\":\"builds\",\"efect\":\"NoSchedule\"}                         | buildPlacement.tolerations[0]"
            })
    void badTolerationsAreRefusedNamingTheField(String toleration, String field) {
        assertThat(refusal(new BuildPlacement(null, null, List.of(WorkerPodBinding.toleration(toleration))))
                        .field())
                .isEqualTo(field);
    }

    @Test
    void badNodeLabelsAreRefusedNamingTheField() {
        assertThat(refusal(new BuildPlacement(Map.of("-pool", "builds"), null, null))
                        .field())
                .isEqualTo("buildPlacement.nodeSelector");
        assertThat(refusal(new BuildPlacement(Map.of("pool", "not/a/value"), null, null))
                        .field())
                .isEqualTo("buildPlacement.nodeSelector");
        for (Map<String, List<String>> required : List.of(
                Map.of("Bad Key", List.of("a")),
                Map.of("zone", List.of("a b")),
                Map.of("zone", List.<String>of()),
                Map.of("zone", Collections.nCopies(17, "a")),
                Collections.singletonMap("zone", (List<String>) null))) {
            InvalidDesiredState refused = refusal(new BuildPlacement(null, required, null));
            assertThat(refused.field()).as(required.toString()).isEqualTo("buildPlacement.requiredNodeLabels");
        }
    }

    @Test
    void theWholeSpecIsCheckedIncludingItsBuildPlacement() {
        DesiredStateSpec spec =
                DesiredStateSpec.DEFAULTS.withBuildPlacement(new BuildPlacement(null, Map.of("zone", List.of()), null));
        InvalidDesiredState refused =
                catchThrowableOfType(InvalidDesiredState.class, () -> DesiredStateValidator.validate(spec));
        assertThat(refused.field()).isEqualTo("buildPlacement.requiredNodeLabels");
    }

    private static InvalidDesiredState refusal(BuildPlacement placement) {
        InvalidDesiredState refused =
                catchThrowableOfType(InvalidDesiredState.class, () -> BuildPlacementRules.validate(placement));
        assertThat(refused).as("refused").isNotNull();
        return refused;
    }
}
