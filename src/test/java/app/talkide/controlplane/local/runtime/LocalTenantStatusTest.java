package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.worker.WorkerReadiness;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** In local mode nothing reconciles: the admin API shows the state the embedded worker really has. */
@DatabaseTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LocalTenantStatusTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @LocalServerPort
    int port;

    @Autowired
    LocalWorkerRuntime workers;

    @Test
    void demoIsReadyOnceItsEmbeddedWorkerServesAndProvisioningWhileItRestarts() {
        // The worker starts on first use; another test sharing this context may have left it stopped.
        await().atMost(Duration.ofSeconds(30)).until(() -> workers.locate(DEMO).readiness() == WorkerReadiness.READY);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(status()).isEqualTo("READY"));

        workers.stopWorker(DEMO);
        try {
            assertThat(status()).isEqualTo("PROVISIONING");
        } finally {
            workers.start(DEMO);
        }
        assertThat(status()).isEqualTo("READY");
    }

    private String status() {
        TestHttp.Response response = new TestHttp(port)
                .get("/api/admin/tenant-environments/demo/dev", "Authorization", TestHttp.basic("dev", "dev"));
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json().get("status").asString();
    }
}
