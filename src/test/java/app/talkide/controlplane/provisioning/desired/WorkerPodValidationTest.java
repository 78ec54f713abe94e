package app.talkide.controlplane.provisioning.desired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.WorkerPod;
import app.talkide.controlplane.provisioning.WorkerPodBinding;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Worker pod settings the API server would refuse, or that cannot work, are refused naming the field. */
class WorkerPodValidationTest {

    static final String GPU_AFFINITY = """
            {"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
              {"matchExpressions":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["m7i.xlarge"]}]}]}},
             "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"podAffinityTerm":
              {"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app.kubernetes.io/name":"talkide-worker"}}}}]}}
            """;

    @Test
    void aFullySetPodIsAccepted() {
        WorkerPod pod = new WorkerPod(
                List.of("registry-credentials"),
                Map.of("kubernetes.io/arch", "amd64", "pool", "agents"),
                List.of(WorkerPodBinding.toleration(
                        "{\"key\":\"sandbox\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}")),
                WorkerPodBinding.affinity(GPU_AFFINITY),
                "talkide-workers",
                "gvisor",
                "1Gi",
                "8Gi",
                "2Gi",
                5);
        assertThatCode(() -> WorkerPodRules.validate(pod)).doesNotThrowAnyException();
        assertThatCode(() -> WorkerPodRules.validate(WorkerPod.UNSET)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "imagePullSecrets  | pod.imagePullSecrets[0]",
                "nodeSelector      | pod.nodeSelector",
                "priorityClassName | pod.priorityClassName",
                "runtimeClassName  | pod.runtimeClassName",
                "ephemeralRequest  | pod.ephemeralStorageRequest",
                "requestOverLimit  | pod.ephemeralStorageRequest",
                "tmpOverHalf       | pod.tmpSizeLimit",
                "probeTimeout      | pod.probeTimeoutSeconds",
                "probeTimeoutZero  | pod.probeTimeoutSeconds"
            })
    void badScalarsAndNamesAreRefusedNamingTheField(String mistake, String field) {
        WorkerPod pod = switch (mistake) {
            case "imagePullSecrets" ->
                (new WorkerPod(List.of("Bad_Name"), null, null, null, null, null, null, null, null, null));
            case "nodeSelector" ->
                (new WorkerPod(null, Map.of("pool", "has spaces"), null, null, null, null, null, null, null, null));
            case "priorityClassName" -> (new WorkerPod(null, null, null, null, "High!", null, null, null, null, null));
            case "runtimeClassName" -> (new WorkerPod(null, null, null, null, null, "gVisor", null, null, null, null));
            case "ephemeralRequest" -> (new WorkerPod(null, null, null, null, null, null, "lots", null, null, null));
            case "requestOverLimit" -> (new WorkerPod(null, null, null, null, null, null, "8Gi", "4Gi", null, null));
            case "tmpOverHalf" -> (new WorkerPod(null, null, null, null, null, null, null, "4Gi", "3Gi", null));
            case "probeTimeout" -> (new WorkerPod(null, null, null, null, null, null, null, null, null, 31));
            default -> (new WorkerPod(null, null, null, null, null, null, null, null, null, 0));
        };
        assertThat(refusal(pod).field()).isEqualTo(field);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"key\":\"sandbox\",\"operator\":\"Maybe\"}                           | pod.tolerations[0].operator",
                "{\"operator\":\"Equal\",\"value\":\"x\"}                               | pod.tolerations[0].key",
                "{\"key\":\"sandbox\",\"operator\":\"Exists\",\"value\":\"x\"}          | pod.tolerations[0].value",
                "{\"key\":\"sandbox\",\"effect\":\"NoScheduleEver\"}                    | pod.tolerations[0].effect",
                "{\"key\":\"sandbox\",\"effect\":\"NoSchedule\",\"tolerationSeconds\":5} | pod.tolerations[0].tolerationSeconds",
                "{\"key\":\"sandbox\",\"efect\":\"NoSchedule\"}                         | pod.tolerations[0]"
            })
    void badTolerationsAreRefusedNamingTheField(String toleration, String field) {
        WorkerPod pod = new WorkerPod(
                null, null, List.of(WorkerPodBinding.toleration(toleration)), null, null, null, null, null, null, null);
        assertThat(refusal(pod).field()).isEqualTo(field);
    }

    @Test
    void aMisspeltAffinityFieldIsRefusedNotDroppedSilently() {
        InvalidDesiredState refused = refusal(affinity(GPU_AFFINITY.replace("nodeSelectorTerms", "nodeSelectorTerm")));
        assertThat(refused.field()).isEqualTo("pod.affinity");
        assertThat(refused.getBody().getDetail()).contains("nodeSelectorTerm");
        assertThat(refusal(affinity(GPU_AFFINITY.replace("\"In\"", "\"Within\"")))
                        .getBody()
                        .getDetail())
                .contains("operator");
        assertThat(refusal(affinity(GPU_AFFINITY.replace("\"weight\":50", "\"weight\":500")))
                        .getBody()
                        .getDetail())
                .contains("weight");
        assertThat(refusal(affinity(GPU_AFFINITY.replace("\"topologyKey\":\"kubernetes.io/hostname\",", "")))
                        .getBody()
                        .getDetail())
                .contains("topologyKey");
    }

    @Test
    void theWholeSpecIsCheckedIncludingItsPod() {
        DesiredStateSpec spec = DesiredStateSpec.DEFAULTS.withPod(
                new WorkerPod(null, null, null, null, null, "Kata Containers", null, null, null, null));
        InvalidDesiredState refused =
                catchThrowableOfType(InvalidDesiredState.class, () -> DesiredStateValidator.validate(spec));
        assertThat(refused.getBody().getProperties()).containsEntry("field", "pod.runtimeClassName");
    }

    @ParameterizedTest
    @CsvSource({
        "registry.example.com/talkide/worker:latest",
        "registry.example.com/talkide/worker",
        "registry.example.com:5000/talkide/worker"
    })
    void aWorkerImageWithoutAFixedTagIsRefused(String image) {
        DesiredStateSpec spec = new DesiredStateSpec(image, null, null, null, null, null, null);
        InvalidDesiredState refused =
                catchThrowableOfType(InvalidDesiredState.class, () -> DesiredStateValidator.validate(spec));
        assertThat(refused.field()).isEqualTo("workerImage");
    }

    @Test
    void pinnedImagesAreAccepted() {
        for (String image : List.of(
                "registry.example.com:5000/talkide/worker:1.4", "ghcr.io/talkide/worker@sha256:" + "a".repeat(64))) {
            assertThatCode(() -> DesiredStateValidator.validate(
                            new DesiredStateSpec(image, null, null, null, null, null, null)))
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void badConfiguredDefaultsStopTheStartNamingTheSetting() {
        assertThatCode(() -> DesiredStateValidator.validateDefaults(
                        ProvisioningFixtures.properties().defaults()))
                .doesNotThrowAnyException();
        var latest = ProvisioningFixtures.properties("defaults.worker-image", "registry.example.com/worker:latest");
        assertThat(catchThrowableOfType(
                                IllegalStateException.class,
                                () -> DesiredStateValidator.validateDefaults(latest.defaults()))
                        .getMessage())
                .contains("talkide.provisioning.defaults")
                .contains("workerImage");
        var tooSmall = ProvisioningFixtures.properties("defaults.pod.probe-timeout-seconds", "0");
        assertThat(catchThrowableOfType(
                                IllegalStateException.class,
                                () -> DesiredStateValidator.validateDefaults(tooSmall.defaults()))
                        .getMessage())
                .contains("pod.probeTimeoutSeconds");
    }

    private static WorkerPod affinity(String json) {
        return new WorkerPod(null, null, null, WorkerPodBinding.affinity(json), null, null, null, null, null, null);
    }

    private static InvalidDesiredState refusal(WorkerPod pod) {
        InvalidDesiredState refused =
                catchThrowableOfType(InvalidDesiredState.class, () -> WorkerPodRules.validate(pod));
        assertThat(refused).as("refused").isNotNull();
        return refused;
    }
}
