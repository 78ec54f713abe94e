package app.talkide.controlplane.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.NodeWorkerTests;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.IdentityTokens;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The cut-over gate end to end in local mode: the real Node worker (child process) and the simulator as
 * the model. With the gate required, demo/dev is not offered until a verification passed through the whole
 * worker path; with the worker's identity token revoked the next one fails, saying the worker could not
 * mint, and demo/dev is closed again until an operator's recorded override opens it. Needs Node 20+ and npm.
 */
@Tag("node-worker")
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.localdev.worker=node",
            "talkide.gate.required=true",
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=1s"
        })
class CutoverGateTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    static final String GATE = "/api/admin/tenant-environments/demo/dev/cutover";
    /** The gate waits up to its turn timeout (3 min) for the engine, which is slow on a busy machine. */
    static final Duration VERIFICATION = Duration.ofMinutes(4);

    @BeforeAll
    static void nodeIsThere() {
        NodeWorkerTests.requireNodeAndBuildTheWorker();
    }

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        NodeWorkerTests.freshDataDir(registry, "talkide-gate-");
    }

    @Autowired
    IdentityTokens identityTokens;

    @LocalServerPort
    int port;

    @Test
    void offeredOnlyAfterAPassedVerificationOrAnOverride() {
        TestHttp http = new TestHttp(port);
        assertThat(offeredToDev(http)).isFalse();
        TestHttp.Response refused = startConversation(http);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("type").asString()).endsWith("/tenant-environment-not-verified");

        JsonNode passed = verify(http);

        assertThat(passed.get("outcome").asString()).as(passed.toString()).isEqualTo("PASSED");
        assertThat(passed.get("requestedBy").asString()).isEqualTo("dev");
        assertThat(http.get(GATE, "Authorization", DEV).json().get("offered").asBoolean())
                .isTrue();
        assertThat(offeredToDev(http)).isTrue();
        assertThat(startConversation(http).status()).isEqualTo(201);

        // The worker can no longer mint: its identity token is revoked.
        identityTokens.revokeAll(DEMO);
        JsonNode failed = verify(http);

        assertThat(failed.get("outcome").asString()).isEqualTo("FAILED");
        assertThat(failed.get("detail").asString())
                .contains("never reached the gateway")
                .contains("could not mint a WorkerToken");
        assertThat(offeredToDev(http)).isFalse();
        assertThat(startConversation(http).status()).isEqualTo(409);

        TestHttp.Response override = put(http, "{\"reason\":\"verified by hand after the incident\"}");
        assertThat(override.status()).isEqualTo(200);
        assertThat(override.json().get("outcome").asString()).isEqualTo("OVERRIDDEN");
        assertThat(offeredToDev(http)).isTrue();
        assertThat(http.get(GATE, "Authorization", DEV).json().get("verifications"))
                .extracting(v -> v.get("outcome").asString())
                .containsExactly("OVERRIDDEN", "FAILED", "PASSED");
        // A synthetic gate user never stays a member.
        assertThat(http.get("/api/admin/tenant-environments/demo/dev/members", "Authorization", DEV)
                        .json())
                .extracting(m -> m.get("userId").asString())
                .noneMatch(user -> user.startsWith("talkide-gate-"));
    }

    private JsonNode verify(TestHttp http) {
        TestHttp.Response started = http.postJson(GATE + "/verifications", "{}", "Authorization", DEV);
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.json().get("id").asString();
        return await().atMost(VERIFICATION)
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () -> {
                            for (JsonNode v :
                                    http.get(GATE, "Authorization", DEV).json().get("verifications")) {
                                if (v.get("id").asString().equals(id)) {
                                    return v;
                                }
                            }
                            throw new AssertionError("verification " + id + " not listed");
                        },
                        v -> !v.get("outcome").asString().equals("RUNNING"));
    }

    private static boolean offeredToDev(TestHttp http) {
        for (JsonNode te :
                http.get("/api/me/tenant-environments", "Authorization", DEV).json()) {
            if (te.get("tenant").asString().equals("demo")
                    && te.get("env").asString().equals("dev")) {
                return true;
            }
        }
        return false;
    }

    private static TestHttp.Response startConversation(TestHttp http) {
        return http.postJson(
                "/api/conversations", "{\"tenant\":\"demo\",\"env\":\"dev\",\"title\":\"t\"}", "Authorization", DEV);
    }

    private TestHttp.Response put(TestHttp http, String json) {
        return http.send(http.request(GATE + "/override")
                .header("Authorization", DEV)
                .header("Content-Type", "application/json")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(json))
                .build());
    }
}
