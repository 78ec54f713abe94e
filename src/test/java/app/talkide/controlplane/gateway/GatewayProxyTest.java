package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.budget.BudgetStatus;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.util.ReflectionTestUtils;

/** The gateway against a WireMock upstream: passthrough, metering, billing, errors, and what never leaks. */
@DatabaseTest
@ExtendWith(OutputCaptureExtension.class)
@GatewayWireMockContext
class GatewayProxyTest {

    static final WireMockServer upstream = WireMockUpstream.server();

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    ApplicationContext context;

    @Autowired
    UserBudgetService budgets;

    @Autowired
    JdbcClient jdbc;

    TestHttp http;
    GatewayTestSupport worker;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        worker = GatewayTestSupport.newWorker(context);
    }

    @Test
    void streamIsRelayedByteForByteWithOnlyTheKeyAddedAndIsBilled() {
        String body = String.join(
                "", AnthropicFixtures.textStream(OPUS, AnthropicFixtures.usage(1000, 0, 0, 1), 50, "Hello there", 120));
        upstream.stubFor(post(urlEqualTo("/v1/messages?beta=true"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/event-stream; charset=utf-8")
                        .withHeader("request-id", "req_upstream_1")
                        .withHeader("anthropic-ratelimit-tokens-remaining", "12345")
                        .withHeader("anthropic-organization-id", "org-secret")
                        .withHeader("Set-Cookie", "upstream=1")
                        .withBody(body)));

        TestHttp.Response response = http.send(http.request(MESSAGES + "?beta=true")
                .header("X-Worker-Token", worker.token())
                .header("Authorization", "Bearer should-not-pass")
                .header("x-api-key", "worker-supplied-key")
                .header("anthropic-beta", "interleaved-thinking-2025-05-14")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(AnthropicFixtures.request(OPUS, true, 128000)))
                .build());

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(body);
        assertThat(response.header("content-type")).startsWith("text/event-stream");
        assertThat(response.header("x-accel-buffering")).isEqualTo("no");
        assertThat(response.header("request-id")).isEqualTo("req_upstream_1");
        assertThat(response.header("anthropic-ratelimit-tokens-remaining")).isEqualTo("12345");
        assertThat(response.header("anthropic-organization-id")).isNull();
        assertThat(response.header("set-cookie")).isNull();

        upstream.verify(postRequestedFor(urlEqualTo("/v1/messages?beta=true"))
                .withHeader("x-api-key", equalTo(API_KEY))
                .withHeader("anthropic-version", equalTo("2023-06-01"))
                .withHeader("anthropic-beta", equalTo("interleaved-thinking-2025-05-14"))
                .withoutHeader("Authorization")
                .withoutHeader("X-Worker-Token")
                .withoutHeader("Cookie"));

        // Opus: 1000 input × $5/M + 120 output × $25/M = 5000 + 3000 µ$.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            BudgetStatus status = budgets.status(worker.userId());
            assertThat(status.spentMicros()).isEqualTo(8_000);
            assertThat(status.reservedMicros()).isZero();
            assertThat(status.callsInFlight()).isZero();
        });
        assertThat(jdbc.sql("select outcome, model_family, input_tokens, output_tokens, cost_micros, first_byte_micros"
                                + " from usage_record where user_id = :user")
                        .param("user", worker.userId())
                        .query()
                        .singleRow())
                .containsEntry("outcome", "completed")
                .containsEntry("model_family", "opus")
                .containsEntry("input_tokens", 1000L)
                .containsEntry("output_tokens", 120L)
                .containsEntry("cost_micros", 8_000L);
    }

    @Test
    void nonStreamingAnswerPassesUnchangedAndIsBilledFromItsUsage() {
        String body = AnthropicFixtures.json("claude-sonnet-4-5-20250929", AnthropicFixtures.usage(2000, 0, 0, 100));
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(body)));

        TestHttp.Response response = call(AnthropicFixtures.request("claude-sonnet-4-5-20250929", false, 1024));

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(body);
        // Sonnet: 2000 × $3/M + 100 × $15/M = 6000 + 1500 µ$.
        awaitSettled(7_500);
    }

    @Test
    void countTokensIsForwardedAndFree() {
        stubCountTokens();

        TestHttp.Response response = http.postJson(
                MESSAGES + "/count_tokens",
                AnthropicFixtures.request(OPUS, false, 1),
                "X-Worker-Token",
                worker.token());

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"input_tokens\":42}");
        upstream.verify(
                postRequestedFor(urlEqualTo("/v1/messages/count_tokens")).withHeader("x-api-key", equalTo(API_KEY)));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.sql(
                                        "select count(*) from usage_record where user_id = :user and endpoint = 'count_tokens'")
                                .param("user", worker.userId())
                                .query(Long.class)
                                .single()
                        == 1);
        assertThat(budgets.status(worker.userId()).spentMicros()).isZero();
    }

    @Test
    void countTokensIsRefusedOverASpentLimitAndCountsAgainstRequestsPerMinute() {
        stubCountTokens();
        String body = AnthropicFixtures.request(OPUS, false, 1);

        budgets.configure(worker.userId(), new UserBudgetSettings(0L, null, null, null, null));
        TestHttp.Response spent = http.postJson(MESSAGES + "/count_tokens", body, "X-Worker-Token", worker.token());
        assertThat(spent.status()).isEqualTo(429);
        assertThat(spent.header("x-talkide-denial-reason")).isEqualTo("spending_limit");
        upstream.verify(0, anyRequestedFor(anyUrl()));

        // A minute far from its end, so the three calls below share it.
        budgets.configure(worker.userId(), new UserBudgetSettings(null, null, null, 2, null));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(http.postJson(MESSAGES + "/count_tokens", body, "X-Worker-Token", worker.token())
                    .status());
        }
        // Two calls of a minute pass and the third is refused, unless the minute turned in between.
        assertThat(statuses.subList(0, 2)).containsOnly(200);
        assertThat(statuses.get(2)).isIn(200, 429);
        upstream.verify(statuses.get(2) == 429 ? 2 : 3, postRequestedFor(urlEqualTo("/v1/messages/count_tokens")));
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 429, 500, 529})
    void upstreamErrorsPassThroughAndReleaseTheReservation(int status) {
        String error =
                "{\"type\":\"error\",\"error\":{\"type\":\"some_error\",\"message\":\"upstream says " + status + "\"}}";
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(status)
                        .withHeader("Content-Type", "application/json")
                        .withHeader("retry-after", "7")
                        .withHeader("x-should-retry", "true")
                        .withBody(error)));

        TestHttp.Response response = call(AnthropicFixtures.request(OPUS, true, 1024));

        assertThat(response.status()).isEqualTo(status);
        assertThat(response.body()).isEqualTo(error);
        assertThat(response.header("retry-after")).isEqualTo("7");
        assertThat(response.header("x-should-retry")).isEqualTo("true");
        awaitSettled(0);
        assertThat(outcomes()).containsExactly("upstream_error");
    }

    @Test
    void upstreamThatResetsTheConnectionIs502InAnthropicShape() {
        upstream.stubFor(
                post(urlEqualTo("/v1/messages")).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));

        TestHttp.Response response = call(AnthropicFixtures.request(OPUS, true, 1024));

        assertThat(response.status()).isEqualTo(502);
        assertAnthropicError(response, "api_error");
        awaitSettled(0);
    }

    @Test
    void upstreamThatBreaksMidStreamEndsWithAnErrorEventAndBillsWhatWasUsed() {
        upstream.stubFor(
                post(urlEqualTo("/v1/messages")).willReturn(aResponse().withFault(Fault.MALFORMED_RESPONSE_CHUNK)));

        TestHttp.Response response = call(AnthropicFixtures.request(OPUS, true, 1024));

        assertThat(response.status()).isIn(200, 502);
        awaitSettled(0);
        assertThat(outcomes()).containsExactly("upstream_error");
    }

    @Test
    void slowFirstByteTimesOutWith504() {
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withFixedDelay(4_000)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{}")));

        TestHttp.Response response = call(AnthropicFixtures.request(OPUS, false, 1024));

        assertThat(response.status()).isEqualTo(504);
        assertAnthropicError(response, "api_error");
        awaitSettled(0);
    }

    @Test
    void errorEventMidStreamPassesThroughAndWhatWasUsedIsBilled() {
        String body = AnthropicFixtures.messageStart(OPUS, AnthropicFixtures.usage(400, 0, 0, 1))
                + AnthropicFixtures.textDelta(0, "abcdefghijkl".repeat(10))
                + AnthropicFixtures.event(
                        "error",
                        "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/event-stream")
                        .withBody(body)));

        TestHttp.Response response = call(AnthropicFixtures.request(OPUS, true, 1024));

        assertThat(response.body()).isEqualTo(body);
        // No message_delta: billed at least the output reserved. 400 input × $5/M = 2000 µ$; the 1024
        // tokens of max_tokens × $25/M = 25600 µ$ (the 120 characters seen would suggest only ~40).
        awaitSettled(27_600);
        assertThat(outcomes()).containsExactly("upstream_error");
    }

    @Test
    void cacheWritesArePricedByTheirLifetime() {
        String usage = "{\"input_tokens\":10,\"cache_creation_input_tokens\":3000,\"cache_read_input_tokens\":10000,"
                + "\"cache_creation\":{\"ephemeral_5m_input_tokens\":1000,\"ephemeral_1h_input_tokens\":2000},"
                + "\"output_tokens\":1}";
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/event-stream")
                        .withBody(String.join("", AnthropicFixtures.textStream(OPUS, usage, 1, "ok", 4)))));

        call(AnthropicFixtures.request(OPUS, true, 1024));

        // Opus input $5/M: 10 → 50; 5 min writes 1000 × 6.25 → 6250; 1 h writes 2000 × 10 → 20000;
        // reads 10000 × 0.5 → 5000; output 4 × 25 → 100. Total 31400 µ$.
        awaitSettled(31_400);
    }

    @Test
    void unknownModelIsPricedAsTheMostExpensiveFamily() {
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(AnthropicFixtures.json("claude-nova-9", AnthropicFixtures.usage(1000, 0, 0, 100)))));

        call(AnthropicFixtures.request("claude-nova-9", false, 1024));

        // at the Opus 4 / 4.1 list price, the highest: 1000 × $15 + 100 × $75 per million
        awaitSettled(22_500);
        assertThat(jdbc.sql("select model, model_family from usage_record where user_id = :user")
                        .param("user", worker.userId())
                        .query()
                        .singleRow())
                .containsEntry("model", "claude-nova-9")
                .containsEntry("model_family", "unknown");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/internal/gateway/anthropic/v1/models",
                "/api/internal/gateway/anthropic/v1/messages/batches",
                "/api/internal/gateway/anthropic/v1/complete",
                "/api/internal/gateway/anthropic/v1/messages/",
                "/api/internal/gateway/anthropic/V1/messages",
                "/api/internal/gateway/anthropic/v1/x/../messages",
                "/api/internal/gateway/anthropic/v1/%6Dessages",
                "/api/internal/gateway/anthropic/v1/./messages",
                "/api/internal/gateway/anthropic/v1/messages;x=1",
                "/api/internal/gateway/anthropic/",
                "/api/internal/gateway/anthropic"
            })
    void everyOtherPathIsNotFoundAndNeverReachesTheUpstream(String path) {
        upstream.stubFor(post(anyUrl()).willReturn(aResponse().withStatus(200).withBody("{}")));

        TestHttp.Response response = http.send(http.request(path)
                .header("X-Worker-Token", worker.token())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(AnthropicFixtures.request(OPUS, false, 10)))
                .build());

        assertThat(response.status()).as(path).isEqualTo(404);
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void anEncodedSlashIsRefusedByTheServerBeforeAnyApplicationCode() {
        // Jetty refuses an ambiguous path separator with 400 before the request reaches any filter.
        TestHttp.Response response = http.postJson(
                "/api/internal/gateway/anthropic/v1/messages%2Fcount_tokens",
                AnthropicFixtures.request(OPUS, false, 10), "X-Worker-Token", worker.token());
        assertThat(response.status()).isIn(400, 404);
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void otherMethodsOnTheMessagesPathAreNotFound() {
        TestHttp.Response response = http.get(MESSAGES, "X-Worker-Token", worker.token());
        assertThat(response.status()).isEqualTo(404);
        assertAnthropicError(response, "not_found_error");
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void workerChosenHeadersLikeAnOrganizationIdNeverReachTheUpstream() {
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(AnthropicFixtures.json(OPUS, AnthropicFixtures.usage(1, 0, 0, 1)))));

        TestHttp.Response response = http.send(http.request(MESSAGES)
                .header("X-Worker-Token", worker.token())
                .header("anthropic-organization-id", "org-someone-else")
                .header("x-anything", "1")
                .header("Forwarded", "for=10.0.0.7")
                .header("anthropic-version", "2023-06-01")
                .header("Accept", "application/json")
                .header("x-stainless-lang", "js")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(AnthropicFixtures.request(OPUS, false, 10)))
                .build());

        assertThat(response.status()).isEqualTo(200);
        upstream.verify(postRequestedFor(urlEqualTo("/v1/messages"))
                .withHeader("x-stainless-lang", equalTo("js"))
                .withHeader("accept", equalTo("application/json"))
                .withHeader("anthropic-version", equalTo("2023-06-01"))
                .withoutHeader("anthropic-organization-id")
                .withoutHeader("x-anything")
                .withoutHeader("Forwarded"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"|", "{", "}", "%22", "\\", "^", "<", ">", "%zz", "%"})
    void rawSpecialCharactersInTheQueryAre400InAnthropicShapeNotA500(String raw, CapturedOutput output) {
        String query = raw.equals("%22") ? "\"" : raw;
        try (RawHttp socket = new RawHttp(port, Duration.ofSeconds(10))) {
            String body = AnthropicFixtures.request(OPUS, false, 10);
            String response = socket.send("POST " + MESSAGES + "?beta=true&x=" + query + " HTTP/1.1\r\nHost: 127.0.0.1"
                            + "\r\nX-Worker-Token: " + worker.token()
                            + "\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                            + "\r\nConnection: close\r\n\r\n"
                            + body)
                    .response();

            assertThat(RawHttp.status(response)).as(query).isEqualTo(400);
            assertThat(response).as(query).contains("invalid_request_error");
            java.util.regex.Matcher id = java.util.regex.Pattern.compile("(?im)^x-talkide-request-id:\\s*(\\S+)")
                    .matcher(response);
            assertThat(id.find()).as(response).isTrue();
            assertThat(output.getOut().lines().filter(line -> line.contains(id.group(1))))
                    .as("one log line for the refused call, without the query")
                    .singleElement()
                    .asString()
                    .contains("refused")
                    .doesNotContain("x=" + query);
        }
        upstream.verify(0, anyRequestedFor(anyUrl()));
        assertThat(output.getOut()).doesNotContain("failed unexpectedly").doesNotContain("\tat app.talkide");
    }

    @Test
    void bodyOverTheLimitIs413() {
        // A declared length over the limit is refused from the headers: only they are sent, so the answer
        // cannot race a body still being written (the server never reads it and closes the connection).
        String head = "POST " + MESSAGES + " HTTP/1.1\r\nHost: localhost\r\nX-Worker-Token: " + worker.token()
                + "\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n";
        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(10))) {
            String response = raw.send(head).response();

            assertThat(RawHttp.status(response)).isEqualTo(413);
            String body = response.substring(response.indexOf("\r\n\r\n") + 4);
            assertThat(TestHttp.JSON.readTree(body).path("error").path("type").asString())
                    .isEqualTo("request_too_large");
            assertThat(TestHttp.JSON.readTree(body).path("type").asString()).isEqualTo("error");
        }
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void bodyThatIsNotJsonIs400() {
        for (String body : List.of("not json", "[1,2]", "{\"model\":", "{} {}", "")) {
            TestHttp.Response response = call(body);
            assertThat(response.status()).as(body).isEqualTo(400);
            assertAnthropicError(response, "invalid_request_error");
        }
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void missingOrBadTokenIs401InAnthropicShape() {
        TestHttp.Response missing = http.postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 10));
        TestHttp.Response bad =
                http.postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 10), "X-Worker-Token", "a.b.c");
        for (TestHttp.Response response : List.of(missing, bad)) {
            assertThat(response.status()).isEqualTo(401);
            assertAnthropicError(response, "authentication_error");
        }
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void aWorkerOfOneTenantCannotSpendOnAConversationOfAnother() {
        GatewayTestSupport other = GatewayTestSupport.newWorker(context);
        // A token signed for tenant A but naming B's conversation fails the signature or scope check.
        String forged = context.getBean(app.talkide.controlplane.token.worker.WorkerTokenIssuer.class)
                .issue(new app.talkide.controlplane.conversation.ConversationScope(
                        other.conversation().id(), worker.tenantEnvironment(), other.userId()))
                .token();

        TestHttp.Response response =
                http.postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 10), "X-Worker-Token", forged);

        assertThat(response.status()).isEqualTo(401);
        upstream.verify(0, anyRequestedFor(anyUrl()));
        assertThat(budgets.status(other.userId()).spentMicros()).isZero();
    }

    @Test
    void spentLimitIsDeniedWith429SpendingLimitAndNoRetry() {
        budgets.configure(worker.userId(), new UserBudgetSettings(0L, null, null, null, null));

        TestHttp.Response response = call(AnthropicFixtures.request(OPUS, true, 1024));

        assertThat(response.status()).isEqualTo(429);
        assertAnthropicError(response, "rate_limit_error");
        assertThat(response.header("x-talkide-denial-reason")).isEqualTo("spending_limit");
        assertThat(response.header("x-should-retry")).isEqualTo("false");
        assertThat(Long.parseLong(response.header("retry-after"))).isPositive();
        assertThat(response.json().path("error").path("message").asString()).contains("Spending limit reached");
        upstream.verify(0, anyRequestedFor(anyUrl()));
        assertThat(outcomes()).containsExactly("denied");
    }

    @Test
    void requestsPerMinuteOverTheFairUseLimitAreDeniedWithRetryAfter() {
        budgets.configure(worker.userId(), new UserBudgetSettings(null, null, null, 2, null));
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(AnthropicFixtures.json(OPUS, AnthropicFixtures.usage(1, 0, 0, 1)))));

        call(AnthropicFixtures.request(OPUS, false, 10));
        call(AnthropicFixtures.request(OPUS, false, 10));
        TestHttp.Response third = call(AnthropicFixtures.request(OPUS, false, 10));

        // Two calls in the same minute pass, the third not (unless the minute turned in between).
        if (third.status() == 429) {
            assertThat(third.header("x-talkide-denial-reason")).isEqualTo("fair_use");
            assertThat(third.header("x-should-retry")).isNull();
            assertThat(Long.parseLong(third.header("retry-after"))).isBetween(1L, 60L);
        } else {
            assertThat(third.status()).isEqualTo(200);
        }
    }

    @Test
    void theApiKeyNeverAppearsInLogsErrorsOrMetrics(CapturedOutput output) {
        upstream.stubFor(
                post(urlEqualTo("/v1/messages"))
                        .willReturn(
                                aResponse()
                                        .withStatus(401)
                                        .withHeader("Content-Type", "application/json")
                                        .withBody(
                                                "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"bad key\"}}")));
        List<TestHttp.Response> responses = List.of(
                call(AnthropicFixtures.request(OPUS, true, 10)),
                call("not json"),
                http.postJson(MESSAGES, "{}", "X-Worker-Token", "x.y.z"),
                new TestHttp(managementPort).get("/actuator/prometheus"));
        upstream.stubFor(
                post(urlEqualTo("/v1/messages")).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        TestHttp.Response reset = call(AnthropicFixtures.request(OPUS, true, 10));
        // The start-up line again: the context is shared, so it may have started (and said it) in another class.
        ReflectionTestUtils.invokeMethod(context.getBean("upstreamAnnouncer"), "announce");

        for (TestHttp.Response response : responses) {
            assertThat(response.body()).doesNotContain(API_KEY);
            response.raw()
                    .headers()
                    .map()
                    .values()
                    .forEach(values -> assertThat(values).noneMatch(v -> v.contains(API_KEY)));
        }
        assertThat(reset.body()).doesNotContain(API_KEY);
        assertThat(output.getAll()).contains("Anthropic gateway upstream").doesNotContain(API_KEY);
        assertThat(context.getBean(GatewayProperties.class).toString()).doesNotContain(API_KEY);
        assertThat(context.getBean(AnthropicUpstream.class).toString()).doesNotContain(API_KEY);
    }

    private TestHttp.Response call(String body) {
        return http.send(http.request(MESSAGES)
                .header("X-Worker-Token", worker.token())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    private static void stubCountTokens() {
        upstream.stubFor(post(urlEqualTo("/v1/messages/count_tokens"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"input_tokens\":42}")));
    }

    private void awaitSettled(long expectedSpend) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            BudgetStatus status = budgets.status(worker.userId());
            assertThat(status.reservedMicros()).isZero();
            assertThat(status.callsInFlight()).isZero();
            assertThat(status.spentMicros()).isEqualTo(expectedSpend);
        });
    }

    private List<String> outcomes() {
        return await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> jdbc.sql("select outcome from usage_record where user_id = :user")
                                .param("user", worker.userId())
                                .query(String.class)
                                .list(),
                        list -> !list.isEmpty());
    }

    private static void assertAnthropicError(TestHttp.Response response, String type) {
        assertThat(response.header("content-type")).startsWith("application/json");
        assertThat(response.json().path("type").asString()).isEqualTo("error");
        assertThat(response.json().path("error").path("type").asString()).isEqualTo(type);
        assertThat(response.json().path("error").path("message").asString()).isNotBlank();
    }
}
