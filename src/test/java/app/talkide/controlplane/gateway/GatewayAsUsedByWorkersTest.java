package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.budget.BudgetStatus;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.RateLimitException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The gateway as workers use it: through the official Anthropic SDK, and with the Claude Code engine's
 * {@code max_tokens: 128000} on every call, which progressive reservations must let through and stop
 * at the limit.
 */
@DatabaseTest
@GatewayWireMockContext
class GatewayAsUsedByWorkersTest {

    static final long DOLLAR = 1_000_000;
    /** One output slice of Opus: 4096 tokens × $25 per million. */
    static final long SLICE = 4096 * 25;

    static final WireMockServer upstream = WireMockUpstream.server();

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    UserBudgetService budgets;

    @Autowired
    JdbcClient jdbc;

    GatewayTestSupport worker;

    @BeforeEach
    void setUp() {
        worker = GatewayTestSupport.newWorker(context);
    }

    @Test
    void theOfficialSdkStreamsThroughTheGateway() {
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/event-stream")
                        .withBody(String.join(
                                "",
                                AnthropicFixtures.textStream(
                                        OPUS, AnthropicFixtures.usage(12, 0, 0, 1), 3, "Hi ", 6)))));

        Message message;
        try (StreamResponse<RawMessageStreamEvent> stream = sdk().messages()
                .createStreaming(MessageCreateParams.builder()
                        .model(OPUS)
                        .maxTokens(128_000)
                        .addUserMessage("Hello, Mara")
                        .build())) {
            MessageAccumulator accumulator = MessageAccumulator.create();
            stream.stream().forEach(accumulator::accumulate);
            message = accumulator.message();
        }

        assertThat(message.content().getFirst().asText().text()).isEqualTo("Hi Hi Hi ");
        assertThat(message.usage().inputTokens()).isEqualTo(12);
        assertThat(message.usage().outputTokens()).isEqualTo(6);
        upstream.verify(postRequestedFor(urlPathEqualTo("/v1/messages"))
                .withHeader("x-api-key", equalTo(API_KEY))
                .withoutHeader("X-Worker-Token"));
        // 12 × $5/M + 6 × $25/M = 60 + 150 µ$.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(budgets.status(worker.userId()).spentMicros())
                        .isEqualTo(210));
    }

    @Test
    void theSdkSeesASpentLimitAsARateLimitAndDoesNotRetry() {
        budgets.configure(worker.userId(), new UserBudgetSettings(0L, null, null, null, null));

        assertThatThrownBy(() -> sdk().messages()
                        .create(MessageCreateParams.builder()
                                .model(OPUS)
                                .maxTokens(1024)
                                .addUserMessage("Hello")
                                .build()))
                .isInstanceOf(RateLimitException.class)
                .hasMessageContaining("Spending limit reached");
        // x-should-retry: false — the SDK gave up after one attempt.
        assertThat(jdbc.sql("select count(*) from usage_record where user_id = :user and outcome = 'denied'")
                        .param("user", worker.userId())
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
    }

    @Test
    void maxTokens128000WithOneDollarLeftIsAllowedAndStopsCleanlyAtTheLimit() {
        budgets.configure(worker.userId(), new UserBudgetSettings(DOLLAR, Enforcement.HARD, null, null, null));
        stubEndlessStream();

        TestHttp.Response response = new TestHttp(port)
                .postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 128_000), "X-Worker-Token", worker.token());

        assertThat(response.status()).isEqualTo(200);
        List<String> events = List.of(response.body().split("\n\n"));
        assertThat(events.getLast())
                .startsWith("event: error\n")
                .contains("\"rate_limit_error\"")
                .contains("Spending limit reached");
        BudgetStatus status = awaitSettled();
        assertThat(status.spentMicros()).isLessThanOrEqualTo(DOLLAR).isGreaterThan(DOLLAR - 2 * SLICE);
        assertThat(record()).containsEntry("outcome", "limit_reached");
    }

    @Test
    void aSoftLimitLetsTheStreamRunOneSlicePastTheLimitAndRecordsTheOverrun() {
        budgets.configure(worker.userId(), new UserBudgetSettings(DOLLAR, Enforcement.SOFT, null, null, null));
        stubEndlessStream();

        TestHttp.Response response = new TestHttp(port)
                .postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 128_000), "X-Worker-Token", worker.token());

        assertThat(response.body()).contains("Spending limit reached");
        BudgetStatus status = awaitSettled();
        // One event may cross the slice boundary before the check: 300 characters ≈ 100 tokens.
        assertThat(status.spentMicros()).isGreaterThan(DOLLAR).isLessThanOrEqualTo(DOLLAR + SLICE + 100 * 25);
        assertThat((Long) record().get("overrun_micros")).isEqualTo(status.spentMicros() - DOLLAR);
    }

    /** A stream far longer than any budget here allows: 2000 deltas of ~100 tokens each. */
    private void stubEndlessStream() {
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/event-stream")
                        .withBody(String.join(
                                "",
                                AnthropicFixtures.textStream(
                                        OPUS,
                                        AnthropicFixtures.usage(100, 0, 0, 1),
                                        2000,
                                        "x".repeat(300),
                                        200_000)))));
    }

    private AnthropicClient sdk() {
        return AnthropicOkHttpClient.builder()
                .baseUrl("http://127.0.0.1:" + port + "/api/internal/gateway/anthropic")
                .apiKey("the-worker-has-no-key")
                .putHeader("X-Worker-Token", worker.token())
                .build();
    }

    private BudgetStatus awaitSettled() {
        await().atMost(Duration.ofSeconds(10)).until(() -> !record().isEmpty());
        BudgetStatus status = budgets.status(worker.userId());
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        return status;
    }

    private Map<String, Object> record() {
        return jdbc
                .sql("select * from usage_record where user_id = :user and outcome <> 'denied'")
                .param("user", worker.userId())
                .query()
                .listOfRows()
                .stream()
                .findFirst()
                .orElse(Map.of());
    }
}
