package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.kinds;
import static app.talkide.controlplane.helm.RenderedChart.only;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static app.talkide.controlplane.helm.RenderedChart.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Rolling updates and node drains: pods roll on changed settings, drain their streams, and drains proceed. */
class ChartUpgradeTest {

    @Test
    void podsRollWhenTheChartsSecretOrConfigMapChanges() {
        Map<String, String> before = annotations(render(UnaryOperator.identity()));
        Map<String, String> newKey = annotations(render(t -> t.set("anthropic.apiKey", "sk-ant-api03-another-key")));
        Map<String, String> newConfig = annotations(render(t -> t.set("config.talkide.x", "y")));

        assertThat(newKey.get("checksum/secret")).isNotEqualTo(before.get("checksum/secret"));
        assertThat(newKey.get("checksum/config")).isEqualTo(before.get("checksum/config"));
        assertThat(newConfig.get("checksum/config")).isNotEqualTo(before.get("checksum/config"));
    }

    @Test
    void aStoppingPodKeepsServingWhileEndpointsUpdateWithinItsGracePeriod() {
        Map<String, Object> deployment = only(render(UnaryOperator.identity()), "Deployment");
        assertThat(text(deployment, "spec.template.spec.containers[0].lifecycle.preStop.sleep.seconds"))
                .isEqualTo("10");
        assertThat(text(deployment, "spec.template.spec.terminationGracePeriodSeconds"))
                .isEqualTo("40");
        assertThat(text(deployment, "spec.strategy.rollingUpdate.maxUnavailable"))
                .isEqualTo("0");
    }

    @Test
    void noDisruptionBudgetAtOneReplicaSoNodeDrainsAreNotBlocked() {
        assertThat(kinds(render(t -> t.set("replicaCount", 1)))).doesNotContain("PodDisruptionBudget");
        Map<String, Object> budget = only(render(UnaryOperator.identity()), "PodDisruptionBudget");
        assertThat(text(budget, "spec.minAvailable")).isEqualTo("1");
    }

    private static Map<String, String> annotations(java.util.List<Map<String, Object>> objects) {
        return at(only(objects, "Deployment"), "spec.template.metadata.annotations");
    }
}
