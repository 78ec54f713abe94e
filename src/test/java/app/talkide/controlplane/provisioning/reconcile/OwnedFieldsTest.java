package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What counts as drift: only the fields the builders set, compared as the API server returns them. */
class OwnedFieldsTest {

    static final Map<String, Object> DESIRED = Map.of(
            "apiVersion",
            "v1",
            "kind",
            "ResourceQuota",
            "metadata",
            Map.of("name", "talkide-limits", "labels", Map.of("a", "1")),
            "spec",
            Map.of("hard", Map.of("requests.cpu", "0.5", "requests.memory", "1024Mi")));

    @Test
    void fieldsTheServerAddsAreNotDrift() {
        Map<String, Object> live = Map.of(
                "apiVersion", "v1",
                "kind", "ResourceQuota",
                "metadata", Map.of("name", "talkide-limits", "labels", Map.of("a", "1", "b", "2"), "uid", "x"),
                "spec", Map.of("hard", Map.of("requests.cpu", "500m", "requests.memory", "1Gi")),
                "status", Map.of("used", Map.of()));
        assertThat(OwnedFields.match(DESIRED, live)).isTrue();
    }

    @Test
    void aChangedOrMissingOwnedValueIsDrift() {
        Map<String, Object> changed = Map.of(
                "metadata", Map.of("name", "talkide-limits", "labels", Map.of("a", "2")),
                "spec", Map.of("hard", Map.of("requests.cpu", "500m", "requests.memory", "1Gi")));
        Map<String, Object> missing = Map.of(
                "metadata", Map.of("name", "talkide-limits", "labels", Map.of("a", "1")),
                "spec", Map.of("hard", Map.of("requests.cpu", "600m", "requests.memory", "1Gi")));
        assertThat(OwnedFields.match(DESIRED, changed)).isFalse();
        assertThat(OwnedFields.match(DESIRED, missing)).isFalse();
    }

    @Test
    void listsMustMatchElementByElement() {
        Map<String, Object> desired = Map.of("spec", Map.of("ports", List.of(Map.of("port", 8080))));
        Map<String, Object> defaulted =
                Map.of("spec", Map.of("ports", List.of(Map.of("port", 8080, "protocol", "TCP"))));
        Map<String, Object> extra = Map.of("spec", Map.of("ports", List.of(Map.of("port", 8080), Map.of("port", 22))));
        assertThat(OwnedFields.match(desired, defaulted)).isTrue();
        assertThat(OwnedFields.match(desired, extra)).isFalse();
    }

    @Test
    void oneVolumeMountedTwiceIsKeyedByMountPathNotByName() {
        Map<String, Object> desired = Map.of(
                "volumeMounts",
                List.of(
                        Map.of("name", "sessions", "mountPath", "/data/claude"),
                        Map.of("name", "sessions", "mountPath", "/data/workspace", "subPath", "workspace")));
        Map<String, Object> live = Map.of(
                "volumeMounts",
                List.of(
                        Map.of("name", "sessions", "mountPath", "/data/workspace", "subPath", "workspace"),
                        Map.of("name", "sessions", "mountPath", "/data/claude")));
        Map<String, Object> lost =
                Map.of("volumeMounts", List.of(Map.of("name", "sessions", "mountPath", "/data/claude")));
        assertThat(OwnedFields.match(desired, live)).isTrue();
        assertThat(OwnedFields.match(desired, lost)).isFalse();
        assertThat(MergePatch.apply(new java.util.HashMap<>(lost), desired, java.util.Set.of())
                        .get("volumeMounts"))
                .asList()
                .hasSize(2);
    }

    @Test
    void aKeyAddedToASelectorIsDriftWhileOneAddedToTheLabelsIsNot() {
        Map<String, Object> desired = Map.of(
                "metadata", Map.of("labels", Map.of("app", "worker")),
                "spec", Map.of("selector", Map.of("app", "worker"), "podSelector", Map.of()));
        Map<String, Object> labelAdded = Map.of(
                "metadata", Map.of("labels", Map.of("app", "worker", "theirs", "1")),
                "spec", Map.of("selector", Map.of("app", "worker"), "podSelector", Map.of("matchLabels", Map.of())));
        Map<String, Object> selectorNarrowed = Map.of(
                "metadata", Map.of("labels", Map.of("app", "worker")),
                "spec", Map.of("selector", Map.of("app", "worker", "theirs", "1"), "podSelector", Map.of()));
        Map<String, Object> targetNarrowed = Map.of(
                "metadata",
                Map.of("labels", Map.of("app", "worker")),
                "spec",
                Map.of(
                        "selector",
                        Map.of("app", "worker"),
                        "podSelector",
                        Map.of("matchLabels", Map.of("only", "these"))));
        assertThat(OwnedFields.match(desired, labelAdded)).isTrue();
        assertThat(OwnedFields.match(desired, selectorNarrowed)).isFalse();
        assertThat(OwnedFields.match(desired, targetNarrowed)).isFalse();

        Map<String, Object> merged = MergePatch.apply(selectorNarrowed, desired, OwnedFields.SELECTORS);
        assertThat(merged.get("spec")).isEqualTo(desired.get("spec"));
    }

    @Test
    void mergePatchMergesMapsAndNamedListsByName() {
        Map<String, Object> live = Map.of(
                "metadata", Map.of("labels", Map.of("theirs", "1"), "uid", "u"),
                "spec", Map.of("containers", List.of(Map.of("name", "worker", "image", "evil"), Map.of("name", "x"))));
        Map<String, Object> desired = Map.of(
                "metadata", Map.of("labels", Map.of("ours", "2")),
                "spec", Map.of("containers", List.of(Map.of("name", "worker", "image", "good"))));
        Map<String, Object> merged = MergePatch.apply(live, desired, OwnedFields.SELECTORS);
        assertThat(merged.get("metadata")).isEqualTo(Map.of("labels", Map.of("theirs", "1", "ours", "2"), "uid", "u"));
        // Containers merge by name, as Kubernetes' strategic merge does: ours is put back, "x" (a webhook's
        // sidecar) stays.
        assertThat(merged.get("spec"))
                .isEqualTo(
                        Map.of("containers", List.of(Map.of("name", "worker", "image", "good"), Map.of("name", "x"))));
    }

    @Test
    void tolerationsAndNodeSelectorKeysOthersAddAreNotDriftWhileOursMustBeThere() {
        Map<String, Object> desiredPod = Map.of(
                "containers", List.of(Map.of("name", "worker")),
                "nodeSelector", Map.of("pool", "agents"),
                "tolerations", List.of(Map.of("key", "sandbox", "operator", "Exists")));
        Map<String, Object> policyAdded = Map.of(
                "containers", List.of(Map.of("name", "worker")),
                "nodeSelector", Map.of("pool", "agents", "zone", "b"),
                "tolerations",
                        List.of(
                                Map.of("key", "spot", "operator", "Exists"),
                                Map.of("key", "sandbox", "operator", "Exists")));
        Map<String, Object> oursMissing = Map.of(
                "containers", List.of(Map.of("name", "worker")),
                "nodeSelector", Map.of("pool", "agents"),
                "tolerations", List.of(Map.of("key", "spot", "operator", "Exists")));
        assertThat(OwnedFields.match(spec(desiredPod), spec(policyAdded))).isTrue();
        assertThat(OwnedFields.match(spec(desiredPod), spec(oursMissing))).isFalse();

        @SuppressWarnings("unchecked")
        Map<String, Object> merged =
                (Map<String, Object>) MergePatch.apply(spec(oursMissing), spec(desiredPod), OwnedFields.OWNED_WHOLE)
                        .get("spec");
        assertThat((List<?>) merged.get("tolerations")).hasSize(2);
        assertThat(OwnedFields.match(spec(desiredPod), Map.of("spec", merged))).isTrue();
    }

    @Test
    void aSizeLimitIsComparedAsAQuantity() {
        Map<String, Object> desired = Map.of("emptyDir", Map.of("sizeLimit", "1Gi"));
        assertThat(OwnedFields.match(desired, Map.of("emptyDir", Map.of("sizeLimit", "1024Mi"))))
                .isTrue();
        assertThat(OwnedFields.match(desired, Map.of("emptyDir", Map.of("sizeLimit", "2Gi"))))
                .isFalse();
    }

    private static Map<String, Object> spec(Map<String, Object> pod) {
        return Map.of("spec", pod);
    }
}
