package app.talkide.controlplane.worker;

import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.local.referenceworker.ReferenceWorker;
import app.talkide.controlplane.local.referenceworker.ReferenceWorkerSettings;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.AnthropicStreams;
import app.talkide.controlplane.support.PostgresOnly;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.command.CommandKeys;
import app.talkide.controlplane.token.identity.IdentityTokens;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Two control-plane instances on one PostgreSQL schema and one worker. Instance A delivers the message
 * and consumes the worker stream; a browser on instance B sees the events A appends. A is stopped in the
 * middle of the turn; B takes the stream over, and the browser on B receives the whole answer, every
 * event once, in order.
 */
@PostgresOnly
class TwoReplicaFailoverTest {

    static final TenantEnvironmentId TENANT = TenantEnvironmentId.of("failover", "dev");
    static final String DEV = TestHttp.basic("dev", "dev");
    static final int CHUNKS = 60;
    /** The one worker both instances locate, as a Kubernetes Service would. */
    static volatile URI workerUrl = URI.create("http://127.0.0.1:0");

    @TempDir
    Path dataA;

    @TempDir
    Path dataB;

    @TempDir
    Path workerDir;

    final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable closeable : cleanup.reversed()) {
            closeable.close();
        }
    }

    @Test
    void instanceStoppedMidTurnIsReplacedWithNothingLostOrDuplicated() {
        WireMockServer anthropic =
                new WireMockServer(WireMockConfiguration.options().dynamicPort());
        anthropic.start();
        cleanup.add(anthropic::stop);
        String[] chunks =
                IntStream.range(0, CHUNKS).mapToObj(i -> "w" + i + " ").toArray(String[]::new);
        anthropic.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text(chunks))
                        .withChunkedDribbleDelay(CHUNKS, 4000)));
        Map<String, Object> database = TestDatabase.freshSettings();
        ConfigurableApplicationContext a = start(dataA, database, anthropic);
        ConfigurableApplicationContext b = start(dataB, database, anthropic);
        cleanup.add(b);
        a.getBean(TenantEnvironments.class).register(TENANT);
        a.getBean(Memberships.class).grant(TENANT, "dev");
        ReferenceWorker worker = startWorker(b);
        cleanup.add(worker::stop);
        workerUrl = worker.baseUrl();

        TestHttp onA = new TestHttp(port(a));
        UUID conversation = UUID.fromString(onA.postJson(
                        "/api/conversations",
                        "{\"tenant\":\"failover\",\"env\":\"dev\",\"title\":\"failover\"}",
                        "Authorization",
                        DEV)
                .json()
                .get("id")
                .asString());
        try (SseClient browserOnB = SseClient.connect(
                "http://127.0.0.1:" + port(b) + "/api/conversations/" + conversation + "/stream",
                "Authorization",
                DEV)) {
            assertThat(onA.postJson(
                                    "/api/conversations/" + conversation + "/messages",
                                    "{\"clientMessageId\":\"m1\",\"text\":\"a long story\"}",
                                    "Authorization",
                                    DEV)
                            .status())
                    .isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> count(browserOnB, "text.delta") >= 10);

            a.close();

            await().atMost(Duration.ofSeconds(60)).until(() -> count(browserOnB, "turn.completed") == 1);
            assertThat(count(browserOnB, "text.delta")).isEqualTo(CHUNKS);
            String answer = browserOnB.events().stream()
                    .filter(e -> e.type().equals("text.delta"))
                    .map(e -> TestHttp.JSON.readTree(e.data()).get("text").asString())
                    .collect(Collectors.joining());
            assertThat(answer).isEqualTo(String.join("", chunks));
            assertThat(browserOnB.ids()).isSorted().doesNotHaveDuplicates();
            assertThat(count(browserOnB, "turn.started")).isEqualTo(1);
        }
    }

    private ReferenceWorker startWorker(ConfigurableApplicationContext gatewayInstance) {
        // The worker's gateway is the surviving instance, as a Service would route it to any live replica.
        return ReferenceWorker.start(
                ReferenceWorkerSettings.fromEnvironment(Map.of(
                        ReferenceWorkerSettings.TENANT, TENANT.tenant(),
                        ReferenceWorkerSettings.ENV, TENANT.env(),
                        ReferenceWorkerSettings.GATEWAY_BASE_URL, "http://127.0.0.1:" + port(gatewayInstance),
                        ReferenceWorkerSettings.IDENTITY_TOKEN,
                                gatewayInstance
                                        .getBean(IdentityTokens.class)
                                        .issue(TENANT)
                                        .token(),
                        ReferenceWorkerSettings.COMMAND_KEY,
                                gatewayInstance
                                        .getBean(CommandKeys.class)
                                        .forWorker(TENANT)
                                        .format(),
                        ReferenceWorkerSettings.CONFIG_DIR, workerDir.toString())),
                Clock.systemUTC());
    }

    private static ConfigurableApplicationContext start(
            Path dataDir, Map<String, Object> database, WireMockServer anthropic) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir,
                // Both instances sign and verify with the same keys, as replicas share one Secret.
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                "--talkide.gateway.api-key=sk-ant-test-key",
                "--talkide.gateway.upstream-url=http://127.0.0.1:" + anthropic.port(),
                "--talkide.worker.runtime=shared",
                "--talkide.worker.stream.lease-ttl=2s",
                "--talkide.worker.stream.lease-renew-interval=500ms",
                "--talkide.worker.stream.sweep-interval=250ms"));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class, SharedWorker.class)
                .run(args.toArray(String[]::new));
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private static long count(SseClient stream, String type) {
        return stream.events().stream().filter(e -> e.type().equals(type)).count();
    }

    /** Both instances find the one worker the test started. */
    @Configuration(proxyBeanMethods = false)
    static class SharedWorker {
        @Bean
        app.talkide.controlplane.worker.WorkerRuntime sharedWorkerRuntime() {
            return id -> new app.talkide.controlplane.worker.WorkerLocation(
                    id, workerUrl, app.talkide.controlplane.worker.WorkerReadiness.READY, "test worker");
        }
    }
}
