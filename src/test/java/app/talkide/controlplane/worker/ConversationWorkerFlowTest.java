package app.talkide.controlplane.worker;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.local.runtime.LocalWorkerRuntime;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.AnthropicStreams;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import app.talkide.controlplane.support.WorkerFlowContext;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * The whole flow over real sockets: browser API and stream, outbox delivery to the embedded reference
 * worker, its local gateway proxy minting WorkerTokens, the gateway, and WireMock as the Anthropic API.
 */
@DatabaseTest
@WorkerFlowContext
class ConversationWorkerFlowTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final WireMockServer anthropic = WireMockUpstream.server();

    @Autowired
    ApplicationContext context;

    @Autowired
    LocalWorkerRuntime workers;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId tenantEnvironment;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        context.getBean(Memberships.class).grant(tenantEnvironment, "dev");
    }

    @Test
    void browserStreamReceivesATurnsEventsInOrder() {
        anthropic.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text("Hello", ", ", "world"))));
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(conversation, "c1", "Greet me");

            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(types(stream)).contains("turn.completed"));
            assertThat(types(stream))
                    .containsSubsequence("message.accepted", "turn.started", "text.delta", "turn.completed");
            assertThat(types(stream).stream().filter("text.delta"::equals)).hasSize(3);
            String answer = stream.events().stream()
                    .filter(e -> e.type().equals("text.delta"))
                    .map(e -> TestHttp.JSON.readTree(e.data()).get("text").asString())
                    .reduce("", String::concat);
            assertThat(answer).isEqualTo("Hello, world");
            assertThat(stream.ids()).isSorted().doesNotHaveDuplicates();
        }
        // The worker reached Anthropic only through the gateway, which added the one key.
        anthropic.verify(postRequestedFor(urlPathEqualTo("/v1/messages"))
                .withHeader("x-api-key", equalTo(WorkerFlowContext.API_KEY)));
    }

    @Test
    void workerRestartedMidTurnTheConversationContinuesAndTheQueuedMessageIsDelivered() {
        anthropic.stubFor(post(urlPathEqualTo("/v1/messages"))
                .inScenario("restart")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text("never finished"))
                        .withFixedDelay(30_000))
                .willSetStateTo("after restart"));
        anthropic.stubFor(post(urlPathEqualTo("/v1/messages"))
                .inScenario("restart")
                .whenScenarioStateIs("after restart")
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text("second answer"))));
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(conversation, "c1", "a long task");
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(types(stream)).contains("turn.started"));
            send(conversation, "c2", "and then this");

            workers.stopWorker(tenantEnvironment);
            workers.start(tenantEnvironment);

            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(types(stream)).contains("turn.completed"));
            List<String> turns =
                    types(stream).stream().filter(t -> t.startsWith("turn.")).toList();
            assertThat(turns).containsExactly("turn.started", "turn.failed", "turn.started", "turn.completed");
            String failure = stream.events().stream()
                    .filter(e -> e.type().equals("turn.failed"))
                    .map(e -> TestHttp.JSON
                            .readTree(e.data())
                            .get("error")
                            .get("type")
                            .asString())
                    .findFirst()
                    .orElseThrow();
            assertThat(failure).isEqualTo("worker_restarted");
            assertThat(stream.ids()).doesNotHaveDuplicates();
        }
    }

    private UUID startConversation() {
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"" + tenantEnvironment.tenant() + "\",\"env\":\"" + tenantEnvironment.env()
                        + "\",\"title\":\"flow\"}",
                "Authorization",
                DEV);
        assertThat(created.status()).isEqualTo(201);
        return UUID.fromString(created.json().get("id").asString());
    }

    private void send(UUID conversation, String clientMessageId, String text) {
        assertThat(http.postJson(
                                "/api/conversations/" + conversation + "/messages",
                                "{\"clientMessageId\":\"" + clientMessageId + "\",\"text\":\"" + text + "\"}",
                                "Authorization",
                                DEV)
                        .status())
                .isEqualTo(202);
    }

    private SseClient stream(UUID conversation) {
        return SseClient.connect(
                "http://127.0.0.1:" + port + "/api/conversations/" + conversation + "/stream", "Authorization", DEV);
    }

    private static List<String> types(SseClient stream) {
        return stream.events().stream().map(SseClient.Event::type).toList();
    }
}
