package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.TestHttp;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * Probes and metrics are on the management port by default, in and outside the chart; the application
 * port (what an Ingress exposes) does not serve them. Tests run every application with a free
 * management port (src/test/resources/config/application.yaml), so the shipped default is read from
 * the application's own application.yaml.
 */
@ExtendWith(OutputCaptureExtension.class)
// A context of its own (never one cached by another class), so its start-up is in the captured output.
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "test.context=ManagementPortTest")
class ManagementPortTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void probesAndMetricsAnswerOnTheManagementPortOnly() {
        TestHttp management = new TestHttp(managementPort);
        assertThat(managementPort).isNotEqualTo(port);
        assertThat(management.get("/actuator/health/readiness").status()).isEqualTo(200);
        assertThat(management.get("/actuator/health/liveness").status()).isEqualTo(200);
        assertThat(management.get("/actuator/prometheus").body()).contains("jvm_memory_used_bytes");
        assertThat(management.get("/actuator/env").status()).isIn(401, 404);
    }

    @Test
    void theApplicationPortDoesNotServeMetricsOrProbes() {
        TestHttp application = new TestHttp(port);
        assertThat(application.get("/actuator/prometheus").status()).isIn(401, 404);
        assertThat(application.get("/actuator/prometheus").body()).doesNotContain("jvm_memory_used_bytes");
        assertThat(application.get("/actuator/health").status()).isIn(401, 404);
    }

    @Test
    void theShippedDefaultIsASeparateLoopbackManagementPortAndProductionListensOnAllInterfaces() throws IOException {
        PropertySource<?> local = yaml("application.yaml");
        assertThat(local.getProperty("management.server.port")).isEqualTo(9090);
        assertThat(local.getProperty("server.port")).isEqualTo(8080);
        assertThat(local.getProperty("management.server.address")).isEqualTo("127.0.0.1");
        assertThat(yaml("application-production.yaml").getProperty("management.server.address"))
                .isEqualTo("0.0.0.0");
    }

    @Test
    void theLogSaysWhereMetricsAre(CapturedOutput output) {
        assertThat(output.getAll())
                .contains("Metrics and probes on the management port: http://127.0.0.1:" + managementPort
                        + "/actuator/prometheus");
    }

    private static PropertySource<?> yaml(String name) throws IOException {
        return new YamlPropertySourceLoader()
                .load(name, new ClassPathResource(name))
                .getFirst();
    }
}
