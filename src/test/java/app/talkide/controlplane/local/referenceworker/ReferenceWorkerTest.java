package app.talkide.controlplane.local.referenceworker;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.AnthropicStreams;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WorkerContractClient;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.TestCommandSigning;
import app.talkide.controlplane.workercontract.SseEventReader.SseEvent;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The reference worker over real HTTP, with WireMock standing in for the control plane's mint endpoint
 * and gateway: turns, tools, budget denials, interrupts, command-token checks, and restarts.
 */
class ReferenceWorkerTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");
    static final String IDENTITY = "tkwi_" + "a".repeat(43);
    static final String GATEWAY = "/api/internal/gateway/anthropic/v1/messages";

    @TempDir
    Path configDir;

    WireMockServer controlPlane;
    ReferenceWorker worker;
    WorkerContractClient client;
    final UUID conversation = UUID.randomUUID();

    @BeforeEach
    void start() {
        controlPlane = new WireMockServer(WireMockConfiguration.options().dynamicPort());
        controlPlane.start();
        controlPlane.stubFor(post("/api/v1/worker-gateway/token/mint")
                .willReturn(okJson("{\"token\":\"minted-worker-token\",\"expiresIn\":120}")));
        worker = startWorker(0);
        client = new WorkerContractClient(
                worker.baseUrl(),
                TestCommandSigning.signer(TestCommandSigning.workerCommandKey(ACME), ACME, Clock.systemUTC()));
    }

    @AfterEach
    void stop() {
        worker.stop();
        controlPlane.stop();
    }

    @Test
    void turnStreamsTheModelsTextAndCompletesWithUsage() {
        stubGateway(ok().withHeader("Content-Type", "text/event-stream").withBody(AnthropicStreams.text("Hel", "lo")));
        assertThat(client.openSession(conversation, "dev").status()).isEqualTo(201);
        assertThat(client.openSession(conversation, "dev").status()).isEqualTo(200);

        try (var stream = client.subscribe(conversation, null)) {
            assertThat(client.message(conversation, "m1", "Say hello").status()).isEqualTo(202);

            await().atMost(Duration.ofSeconds(10)).until(() -> stream.types().contains("turn.completed"));
            assertThat(stream.types())
                    .containsExactly("session.status", "turn.started", "text.delta", "text.delta", "turn.completed");
            List<SseEvent> events = stream.events();
            assertThat(stream.data(events.get(2)).get("text").asString()).isEqualTo("Hel");
            JsonNode completed = stream.data(events.get(4));
            assertThat(completed.get("messageId").asString()).isEqualTo("m1");
            assertThat(completed.get("stopReason").asString()).isEqualTo("end_turn");
            assertThat(completed.get("usage").get("inputTokens").asLong()).isEqualTo(25);
            assertThat(completed.get("usage").get("outputTokens").asLong()).isEqualTo(15);
            assertThat(events).extracting(SseEvent::id).doesNotHaveDuplicates().doesNotContainNull();
        }
        // The gateway call carries a freshly minted WorkerToken and nothing of the model client's own credentials.
        controlPlane.verify(postRequestedFor(urlPathEqualTo("/api/v1/worker-gateway/token/mint"))
                .withHeader("Authorization", equalTo("Bearer " + IDENTITY))
                .withRequestBody(equalToJson("{\"conversationId\":\"" + conversation + "\"}")));
        controlPlane.verify(postRequestedFor(urlEqualTo(GATEWAY + "?beta=true"))
                .withHeader("X-Worker-Token", equalTo("minted-worker-token"))
                .withoutHeader("Authorization")
                .withoutHeader("x-api-key")
                .withRequestBody(matchingJsonPath("$.messages[0].content", equalTo("Say hello"))));
    }

    @Test
    void toolUseRunsTheToolAndContinuesTheTurn() {
        controlPlane.stubFor(post(urlPathEqualTo(GATEWAY))
                .inScenario("tool")
                .whenScenarioStateIs(Scenario.STARTED)
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.toolUse("toolu_1", "current_time")))
                .willSetStateTo("answered"));
        controlPlane.stubFor(post(urlPathEqualTo(GATEWAY))
                .inScenario("tool")
                .whenScenarioStateIs("answered")
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text("It is now."))));
        client.openSession(conversation, "dev");

        try (var stream = client.subscribe(conversation, null)) {
            client.message(conversation, "m1", "What time is it?");

            await().atMost(Duration.ofSeconds(10)).until(() -> stream.types().contains("turn.completed"));
            assertThat(stream.types())
                    .containsExactly(
                            "session.status",
                            "turn.started",
                            "tool.started",
                            "tool.completed",
                            "text.delta",
                            "turn.completed");
            JsonNode completed = stream.data(stream.events().get(3));
            assertThat(completed.get("toolUseId").asString()).isEqualTo("toolu_1");
            assertThat(completed.get("isError").asBoolean()).isFalse();
        }
        controlPlane.verify(2, postRequestedFor(urlPathEqualTo("/api/v1/worker-gateway/token/mint")));
        controlPlane.verify(postRequestedFor(urlPathEqualTo(GATEWAY))
                .withRequestBody(matchingJsonPath("$.messages[2].content[0].tool_use_id", equalTo("toolu_1"))));
    }

    @Test
    void spendingLimitDenialFailsTheTurnAsBudgetExceeded() {
        stubGateway(aResponse()
                .withStatus(429)
                .withHeader("x-talkide-denial-reason", "spending_limit")
                .withHeader("Content-Type", "application/json")
                .withBody(AnthropicStreams.error("rate_limit_error", "Monthly spending limit reached")));

        JsonNode error = failureOfOneTurn();

        assertThat(error.get("type").asString()).isEqualTo("budget_exceeded");
        assertThat(error.get("message").asString()).isEqualTo("Monthly spending limit reached");
    }

    @Test
    void spendingLimitReachedMidStreamFailsTheTurnAsBudgetExceeded() {
        String cut = AnthropicStreams.text("partial").replaceAll("(?s)event: message_delta.*", "")
                + "event: error\ndata: "
                + AnthropicStreams.error("rate_limit_error", "Spending limit reached: stopped.")
                + "\n\n";
        stubGateway(ok().withHeader("Content-Type", "text/event-stream").withBody(cut));

        assertThat(failureOfOneTurn().get("type").asString()).isEqualTo("budget_exceeded");
    }

    @Test
    void otherGatewayErrorsFailTheTurnAsUpstreamError() {
        stubGateway(aResponse()
                .withStatus(429)
                .withHeader("x-talkide-denial-reason", "fair_use")
                .withBody(AnthropicStreams.error("rate_limit_error", "slow down")));

        assertThat(failureOfOneTurn().get("type").asString()).isEqualTo("upstream_error");
    }

    @Test
    void unreachableMintFailsTheTurnAsUpstreamError() {
        controlPlane.stubFor(
                post("/api/v1/worker-gateway/token/mint").willReturn(aResponse().withStatus(401)));

        assertThat(failureOfOneTurn().get("type").asString()).isEqualTo("upstream_error");
        controlPlane.verify(0, postRequestedFor(urlPathEqualTo(GATEWAY)));
    }

    @Test
    void messageDuringATurnIsAConflictAndARepeatIsIdempotent() {
        stubGateway(ok().withHeader("Content-Type", "text/event-stream")
                .withBody(AnthropicStreams.text("slow"))
                .withFixedDelay(1500));
        client.openSession(conversation, "dev");

        try (var stream = client.subscribe(conversation, null)) {
            assertThat(client.message(conversation, "m1", "first").status()).isEqualTo(202);
            assertThat(client.message(conversation, "m2", "second").status()).isEqualTo(409);
            TestHttp.Response repeat = client.message(conversation, "m1", "first");
            assertThat(repeat.status()).isEqualTo(202);
            assertThat(repeat.json().get("status").asString()).isEqualTo("duplicate");

            await().atMost(Duration.ofSeconds(10)).until(() -> stream.types().contains("turn.completed"));
            assertThat(client.message(conversation, "m2", "second").status()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> stream.types().stream()
                                    .filter("turn.completed"::equals)
                                    .count()
                            == 2);
            assertThat(stream.types().stream().filter("turn.started"::equals)).hasSize(2);
        }
    }

    @Test
    void interruptEndsTheRunningTurnAsInterrupted() {
        stubGateway(ok().withHeader("Content-Type", "text/event-stream")
                .withBody(AnthropicStreams.text("never seen"))
                .withFixedDelay(20_000));
        client.openSession(conversation, "dev");

        try (var stream = client.subscribe(conversation, null)) {
            client.message(conversation, "m1", "long task");
            await().atMost(Duration.ofSeconds(5)).until(() -> stream.types().contains("turn.started"));

            assertThat(client.interrupt(conversation).status()).isEqualTo(202);

            await().atMost(Duration.ofSeconds(5)).until(() -> stream.types().contains("turn.failed"));
            JsonNode failed = stream.data(stream.events().getLast());
            assertThat(failed.get("error").get("type").asString()).isEqualTo("interrupted");
        }
        assertThat(client.message(conversation, "m2", "next").status()).isEqualTo(202);
    }

    @Test
    void callsWithoutAValidCommandTokenAreRefused() {
        String body = "{\"conversationId\":\"" + conversation + "\",\"userId\":\"dev\",\"resume\":false}";
        String token = client.sign("POST", "/sessions", body);

        assertThat(client.sendWithToken("POST", "/sessions", body, null).status())
                .isEqualTo(401);
        assertThat(client.sendWithToken("POST", "/sessions", body.replace("dev", "eve"), token)
                        .status())
                .isEqualTo(401);
        assertThat(client.sendWithToken("POST", "/sessions", body, token).status())
                .isEqualTo(201);
        TestHttp.Response replayed = client.sendWithToken("POST", "/sessions", body, token);
        assertThat(replayed.status()).isEqualTo(401);
        assertThat(replayed.body()).contains("replayed").doesNotContain(token);
        TenantEnvironmentId other = TenantEnvironmentId.of("other", "dev");
        var otherSigner =
                TestCommandSigning.signer(TestCommandSigning.workerCommandKey(other), other, Clock.systemUTC());
        assertThat(client.sendWithToken(
                                "POST", "/sessions", body, otherSigner.sign("POST", "/sessions", body.getBytes()))
                        .status())
                .isEqualTo(401);
        assertThat(client.sendWithToken("GET", "/sessions/" + conversation + "/stream", "", null)
                        .status())
                .isEqualTo(401);
    }

    @Test
    void badRequestsAreProblemsNotCrashes() {
        assertThat(client.send("POST", "/sessions", "{not json").status()).isEqualTo(400);
        assertThat(client.send("POST", "/sessions", "{\"conversationId\":\"x\",\"userId\":\"dev\"}")
                        .status())
                .isEqualTo(400);
        assertThat(client.message(UUID.randomUUID(), "m1", "hello").status()).isEqualTo(404);
        client.openSession(conversation, "dev");
        assertThat(client.message(conversation, "m1", "").status()).isEqualTo(400);
        assertThat(client.openSession(conversation, "eve").status()).isEqualTo(409);
    }

    @Test
    void restartResumesTheTranscriptAndTheStreamFromLastEventId() {
        stubGateway(
                ok().withHeader("Content-Type", "text/event-stream").withBody(AnthropicStreams.text("first answer")));
        client.openSession(conversation, "dev");
        String lastId;
        try (var stream = client.subscribe(conversation, null)) {
            client.message(conversation, "m1", "first question");
            await().atMost(Duration.ofSeconds(10)).until(() -> stream.types().contains("turn.completed"));
            lastId = stream.events().getLast().id();
        }

        restartWorker();

        try (var stream = client.subscribe(conversation, lastId)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !stream.events().isEmpty());
            assertThat(stream.types()).containsExactly("session.status");
            assertThat(stream.data(stream.events().getFirst()).get("status").asString())
                    .isEqualTo("resumed");
            assertThat(client.message(conversation, "m1", "first question").status())
                    .isEqualTo(202); // still known after the restart: not run twice
            client.message(conversation, "m2", "second question");
            await().atMost(Duration.ofSeconds(10)).until(() -> stream.types().contains("turn.completed"));
        }
        controlPlane.verify(postRequestedFor(urlPathEqualTo(GATEWAY))
                .withRequestBody(matchingJsonPath("$.messages[0].content", equalTo("first question")))
                .withRequestBody(matchingJsonPath("$.messages[1].content[0].text", equalTo("first answer")))
                .withRequestBody(matchingJsonPath("$.messages[2].content", equalTo("second question"))));
    }

    @Test
    void restartDuringATurnReportsItAsFailedSoTheNextMessageCanGo() {
        stubGateway(ok().withHeader("Content-Type", "text/event-stream")
                .withBody(AnthropicStreams.text("never"))
                .withFixedDelay(20_000));
        client.openSession(conversation, "dev");
        try (var stream = client.subscribe(conversation, null)) {
            client.message(conversation, "m1", "long task");
            await().atMost(Duration.ofSeconds(5)).until(() -> stream.types().contains("turn.started"));
        }

        restartWorker();

        try (var stream = client.subscribe(conversation, null)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> stream.types().contains("turn.failed"));
            SseEvent failed = stream.events().stream()
                    .filter(e -> e.type().equals("turn.failed"))
                    .findFirst()
                    .orElseThrow();
            assertThat(stream.data(failed).get("error").get("type").asString()).isEqualTo("worker_restarted");
            assertThat(stream.types()).containsSubsequence("session.status", "turn.started", "turn.failed");
        }
        assertThat(client.message(conversation, "m2", "again").status()).isEqualTo(202);
    }

    @Test
    void probesAnswerWithoutAToken() {
        TestHttp http = new TestHttp(worker.baseUrl().toString());
        assertThat(http.get("/healthz").status()).isEqualTo(200);
        assertThat(http.get("/readyz").status()).isEqualTo(200);
        assertThat(http.get("/nope").status()).isEqualTo(404);
    }

    @Test
    void settingsNeverPrintTheIdentityToken() {
        assertThat(worker.settings().toString()).doesNotContain(IDENTITY).contains("<redacted>");
    }

    private JsonNode failureOfOneTurn() {
        client.openSession(conversation, "dev");
        try (var stream = client.subscribe(conversation, null)) {
            client.message(conversation, "m1", "anything");
            await().atMost(Duration.ofSeconds(10)).until(() -> stream.types().contains("turn.failed"));
            return stream.data(stream.events().getLast()).get("error");
        }
    }

    private void stubGateway(com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder response) {
        controlPlane.stubFor(post(urlPathEqualTo(GATEWAY)).willReturn(response));
    }

    private void restartWorker() {
        int port = worker.port();
        worker.stop();
        worker = startWorker(port);
    }

    private ReferenceWorker startWorker(int port) {
        return ReferenceWorker.start(
                ReferenceWorkerSettings.fromEnvironment(Map.of(
                        ReferenceWorkerSettings.TENANT, ACME.tenant(),
                        ReferenceWorkerSettings.ENV, ACME.env(),
                        ReferenceWorkerSettings.GATEWAY_BASE_URL, "http://127.0.0.1:" + controlPlane.port(),
                        ReferenceWorkerSettings.IDENTITY_TOKEN, IDENTITY,
                        ReferenceWorkerSettings.COMMAND_KEY, TestCommandSigning.workerCommandKey(ACME),
                        ReferenceWorkerSettings.CONFIG_DIR, configDir.toString(),
                        ReferenceWorkerSettings.PORT, String.valueOf(port),
                        ReferenceWorkerSettings.HEARTBEAT, "PT1S")),
                Clock.systemUTC());
    }

    static URI unused() {
        return URI.create("http://unused");
    }
}
