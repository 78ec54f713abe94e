package app.talkide.controlplane.token.worker;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.gateway.AnthropicFixtures;
import app.talkide.controlplane.gateway.GatewayTestSupport;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.PostgresOnly;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.TokenTestSupport;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two replicas on one PostgreSQL: replica B remembers that a worker's owner is in good standing, so its
 * gateway reads no database for it; a revocation or a tenant-environment deletion on replica A reaches B
 * through NOTIFY, and B refuses the very next call well within {@link OwnerStanding#MAX_AGE}, the bound if
 * the notification were lost.
 */
@DatabaseTest
@PostgresOnly
class OwnerStandingAcrossReplicasTest {

    /** Well below the max age (5 s): passing proves the notification, not the cache's expiry, did it. */
    static final Duration NOTIFIED_WITHIN = Duration.ofSeconds(2);

    static WireMockServer upstream;
    static ConfigurableApplicationContext a;
    static ConfigurableApplicationContext b;

    @TempDir
    static Path dataDir;

    @BeforeAll
    static void startTwoReplicas() {
        upstream = new WireMockServer(WireMockConfiguration.options().dynamicPort());
        upstream.start();
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(
                                AnthropicFixtures.json(AnthropicFixtures.OPUS, AnthropicFixtures.usage(10, 0, 0, 1)))));
        Map<String, Object> database = TestDatabase.freshSettings();
        a = start("a", database);
        b = start("b", database);
    }

    @AfterAll
    static void stop() {
        for (ConfigurableApplicationContext replica : new ConfigurableApplicationContext[] {a, b}) {
            if (replica != null) {
                replica.close();
            }
        }
        if (upstream != null) {
            upstream.stop();
        }
    }

    @Test
    void memberRemovedOnReplicaAIsRefusedOnReplicaBAtTheNextCall() {
        GatewayTestSupport worker = GatewayTestSupport.newWorker(a);
        assertThat(call(b, worker).status()).isEqualTo(200);
        assertThat(call(b, worker).status()).as("served from B's memory").isEqualTo(200);

        a.getBean(Memberships.class).revoke(worker.tenantEnvironment(), worker.userId());

        await().atMost(NOTIFIED_WITHIN)
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(call(b, worker).status()).isEqualTo(401));
        assertThat(call(a, worker).status()).isEqualTo(401);
    }

    @Test
    void tenantEnvironmentDeletedOnReplicaAStopsItsWorkersOnReplicaB() {
        GatewayTestSupport worker = GatewayTestSupport.newWorker(a);
        assertThat(call(b, worker).status()).isEqualTo(200);

        a.getBean(TenantEnvironments.class).changeStatus(worker.tenantEnvironment(), TenantEnvironmentStatus.DELETING);

        await().atMost(NOTIFIED_WITHIN)
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(call(b, worker).status()).isEqualTo(401));
    }

    @Test
    void aRemovalElsewhereLeavesOtherMembersServedFromMemory() {
        GatewayTestSupport stays = GatewayTestSupport.newWorker(a);
        GatewayTestSupport goes = GatewayTestSupport.newWorker(a);
        assertThat(call(b, stays).status()).isEqualTo(200);
        assertThat(call(b, goes).status()).isEqualTo(200);

        a.getBean(Memberships.class).revoke(goes.tenantEnvironment(), goes.userId());

        await().atMost(NOTIFIED_WITHIN)
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(call(b, goes).status()).isEqualTo(401));
        assertThat(call(b, stays).status()).isEqualTo(200);
    }

    private static TestHttp.Response call(ConfigurableApplicationContext replica, GatewayTestSupport worker) {
        return new TestHttp(
                        ((WebServerApplicationContext) replica).getWebServer().getPort())
                .postJson(
                        GatewayTestSupport.MESSAGES,
                        AnthropicFixtures.request(AnthropicFixtures.OPUS, false, 10),
                        "X-Worker-Token",
                        worker.token());
    }

    private static ConfigurableApplicationContext start(String name, Map<String, Object> database) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir.resolve(name),
                // Both replicas sign and verify with the same keys, as they share one Secret.
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                "--talkide.gateway.api-key=" + GatewayTestSupport.API_KEY,
                "--talkide.gateway.upstream-url=http://127.0.0.1:" + upstream.port()));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
    }
}
