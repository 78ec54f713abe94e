package app.talkide.controlplane.helm;

import static app.talkide.controlplane.helm.RenderedChart.at;
import static app.talkide.controlplane.helm.RenderedChart.only;
import static app.talkide.controlplane.helm.RenderedChart.render;
import static app.talkide.controlplane.helm.RenderedChart.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The public Ingress carries browsers' paths only, over TLS by default. */
class ChartIngressTest {

    final Map<String, Object> ingress = only(render(UnaryOperator.identity()), "Ingress");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/internal/gateway/anthropic/v1/messages",
                "/api/internal/worker/whoami",
                "/api/internal/worker/conversations/c1/messages",
                "/api/v1/worker-gateway/token/mint",
                "/actuator/prometheus",
                "/actuator/health"
            })
    void workerAndManagementPathsAreNotRouted(String path) {
        assertThat(routes(path)).as(path).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/",
                "/admin",
                "/login",
                "/js/app.js",
                "/css/app.css",
                "/api/conversations/c1/stream",
                "/api/me/usage",
                "/api/console/session",
                "/api/admin/tenant-environments"
            })
    void browserPathsAreRouted(String path) {
        assertThat(routes(path)).as(path).isTrue();
    }

    @Test
    void tlsIsOnByDefaultWithASecretNamedAfterTheRelease() {
        assertThat(text(ingress, "spec.tls[0].secretName")).isEqualTo("talkide-talkide-control-plane-tls");
        assertThat(text(ingress, "spec.tls[0].hosts[0]")).isEqualTo("api.talkide.app");
        Map<String, Object> plain = only(render(t -> t.set("ingress.tls.enabled", false)), "Ingress");
        assertThat((Object) at(plain, "spec.tls")).isNull();
    }

    @Test
    void theSchemaRefusesAWorkerPathOnTheIngress() {
        assertThatThrownBy(() -> render(t ->
                        t.set("ingress.paths[0].path", "/api/internal").set("ingress.paths[0].pathType", "Prefix")))
                .hasMessageContaining("ingress.paths");
    }

    /** Whether the Ingress sends this path to the Service, by the rules of Exact and Prefix path types. */
    private boolean routes(String path) {
        List<Map<String, Object>> paths = at(ingress, "spec.rules[0].http.paths");
        return paths.stream().anyMatch(rule -> {
            String declared = (String) rule.get("path");
            return switch ((String) rule.get("pathType")) {
                case "Exact" -> path.equals(declared);
                case "Prefix" -> path.equals(declared) || path.startsWith(declared + "/");
                default -> throw new IllegalStateException("unexpected pathType " + rule.get("pathType"));
            };
        });
    }
}
