package app.talkide.controlplane.helm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The chart's dashboard, alert rules and tracing settings, behind their values flags. */
class MonitoringChartTest {

    @Test
    void dashboardAndRulesAreRenderedOnlyWhenTheirFlagsAreOn() {
        List<String> off = MonitoringChart.render(t -> t.set("monitoring.prometheusRule.enabled", false)
                        .set("monitoring.grafanaDashboard.enabled", false))
                .stream()
                .map(object -> (String) object.get("kind"))
                .toList();
        assertThat(off).doesNotContain("PrometheusRule");
        assertThat(MonitoringChart.render(UnaryOperator.identity()).stream().map(object -> object.get("kind")))
                .contains("PrometheusRule");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theDashboardIsAConfigMapForGrafanasSidecarWithPanelsOnExportedMetrics() {
        Map<String, Object> dashboard = MonitoringChart.render(UnaryOperator.identity()).stream()
                .filter(object -> "ConfigMap".equals(object.get("kind")))
                .filter(object -> ((Map<String, Object>) object.get("metadata"))
                        .get("name")
                        .toString()
                        .endsWith("-dashboard"))
                .findFirst()
                .orElseThrow();
        Map<String, Object> labels =
                (Map<String, Object>) ((Map<String, Object>) dashboard.get("metadata")).get("labels");
        assertThat(labels).containsEntry("grafana_dashboard", "1");
        String json = ((Map<String, Object>) dashboard.get("data"))
                .get("talkide-control-plane.json")
                .toString();
        JsonNode parsed = JsonMapper.builder().build().readTree(json);
        assertThat(parsed.get("uid").asString()).isEqualTo("talkide-control-plane");
        assertThat(parsed.get("panels").size()).isGreaterThan(8);
    }

    @Test
    void everyAlertHasARunbookEntryInTheOperationsGuide() throws Exception {
        String operations = Files.readString(Path.of("docs", "operations.md"));
        MonitoringChart.alerts()
                .values()
                .forEach(alerts -> alerts.keySet()
                        .forEach(alert -> assertThat(operations)
                                .as("runbook for " + alert)
                                .contains("### " + alert)));
        assertThat(MonitoringChart.alerts()).containsKeys("talkide-control-plane", "talkide-provisioning");
        assertThat(MonitoringChart.alerts().get("talkide-control-plane").keySet().stream()
                        .map(name -> name.toLowerCase(Locale.ROOT)))
                .isNotEmpty();
    }

    @Test
    void everyThresholdIsAChartValueThatMovesItsAlertAndHasADocumentedRationale() throws Exception {
        Map<String, Object> thresholds = MonitoringChart.thresholds();
        assertThat(thresholds).hasSizeGreaterThanOrEqualTo(9);
        String operations = Files.readString(Path.of("docs", "operations.md"));
        String byDefault = MonitoringChart.alerts().toString();
        for (Map.Entry<String, Object> threshold : thresholds.entrySet()) {
            String key = threshold.getKey();
            assertThat(byDefault).as(key + " by default").contains("> " + threshold.getValue());
            String moved = MonitoringChart.alerts(t -> t.set("monitoring.prometheusRule.thresholds." + key, "4242"))
                    .toString();
            assertThat(moved).as(key + " set").contains("> 4242");
            assertThat(byDefault).doesNotContain("4242");
            assertThat(operations).as("rationale for " + key).contains("`" + key + "`");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void tracesAreExportedOnlyWhenAnEndpointIsSet() {
        Map<String, String> byDefault = env(MonitoringChart.render(UnaryOperator.identity()));
        assertThat(byDefault).containsEntry("MANAGEMENT_TRACING_SAMPLING_PROBABILITY", "0.1");
        assertThat(byDefault).doesNotContainKey("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT");

        Map<String, String> exporting = env(MonitoringChart.render(
                t -> t.set("tracing.otlpEndpoint", "http://otel-collector.monitoring:4318/v1/traces")
                        .set("tracing.samplingProbability", "1")));
        assertThat(exporting)
                .containsEntry(
                        "MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT",
                        "http://otel-collector.monitoring:4318/v1/traces")
                .containsEntry("MANAGEMENT_TRACING_SAMPLING_PROBABILITY", "1");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> env(List<Map<String, Object>> objects) {
        Map<String, Object> deployment = objects.stream()
                .filter(object -> "Deployment".equals(object.get("kind")))
                .findFirst()
                .orElseThrow();
        Map<String, Object> spec = (Map<String, Object>)
                ((Map<String, Object>) ((Map<String, Object>) deployment.get("spec")).get("template")).get("spec");
        Map<String, Object> container = ((List<Map<String, Object>>) spec.get("containers")).getFirst();
        Map<String, String> env = new java.util.LinkedHashMap<>();
        for (Map<String, Object> entry : (List<Map<String, Object>>) container.get("env")) {
            if (entry.get("value") != null) {
                env.put((String) entry.get("name"), entry.get("value").toString());
            }
        }
        return env;
    }
}
