package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.TestHttp;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

/** As the Helm chart runs it: probes and metrics on a separate management port, the same security rules there. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "management.server.port=0")
class ManagementPortTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void probesAndMetricsAnswerOnTheManagementPortOnly() {
        TestHttp management = new TestHttp(managementPort);
        assertThat(management.get("/actuator/health/readiness").status()).isEqualTo(200);
        assertThat(management.get("/actuator/prometheus").body()).contains("jvm_memory_used_bytes");
        assertThat(management.get("/actuator/env").status()).isIn(401, 404);
        assertThat(new TestHttp(port).get("/actuator/prometheus").status()).isIn(401, 404);
    }
}
