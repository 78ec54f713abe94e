package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.reset;

import app.talkide.controlplane.budget.BudgetStatus;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

/**
 * The gateway when something under it fails: the budget's database while a stream runs, an upstream
 * that goes silent or hangs up in the middle of a plain JSON body. Each call still ends, is billed for
 * what it used and gives its reservation and concurrency slot back, and the worker gets Anthropic's error
 * shape, never a stack trace.
 */
@DirtiesContext
@DatabaseTest
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.gateway.api-key=" + API_KEY, "talkide.gateway.stream-idle-timeout=1s"})
class GatewayFailurePathsTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static ScriptedUpstream upstream;

    @DynamicPropertySource
    static void upstreamUrl(DynamicPropertyRegistry registry) throws IOException {
        upstream = new ScriptedUpstream();
        registry.add("talkide.gateway.upstream-url", upstream::baseUrl);
    }

    @AfterAll
    static void stopUpstream() throws IOException {
        upstream.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @MockitoSpyBean
    UserBudgetService budgets;

    @Autowired
    JdbcClient jdbc;

    GatewayTestSupport worker;
    TestHttp http;

    @BeforeEach
    void setUp() {
        worker = GatewayTestSupport.newWorker(context);
        http = new TestHttp(port);
    }

    @AfterEach
    void realBudget() {
        reset(budgets);
    }

    @Test
    void aDatabaseFailureWhileExtendingEndsTheStreamAndStillBillsWhatWasUsed(CapturedOutput output) throws Exception {
        doThrow(new CannotAcquireLockException("lock wait timeout"))
                .when(budgets)
                .extend(any(), anyLong());
        try (EventStreamClient client = open(AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            exchange.startEventStream();
            // The real input is far above the estimate, so the gateway must extend right here.
            String start = AnthropicFixtures.messageStart(OPUS, AnthropicFixtures.usage(10_000, 0, 0, 1));
            exchange.send(start);
            assertThat(client.next(WAIT)).isEqualTo(start);

            assertThat(client.next(WAIT))
                    .startsWith("event: error\n")
                    .contains("\"api_error\"")
                    .contains("budget reservation");
            assertThat(client.next(WAIT)).isEqualTo(EventStreamClient.END);
        }
        // 10,000 input × $5/M = 50,000 µ$ plus the 1 output token message_start reported × $25/M.
        assertThat(awaitSettled("upstream_error").spentMicros()).isEqualTo(50_025);
        assertThat(output.getAll()).doesNotContain("\tat app.talkide").doesNotContain(API_KEY);
    }

    @Test
    void aJsonBodyThatStopsHalfWayIsCutOffAndReleasesTheReservation() throws Exception {
        CompletableFuture<TestHttp.Response> call = CompletableFuture.supplyAsync(() -> http.postJson(
                MESSAGES, AnthropicFixtures.request(OPUS, false, 1024), "X-Worker-Token", worker.token()));
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        String answer = AnthropicFixtures.json(OPUS, AnthropicFixtures.usage(1000, 0, 0, 50));
        exchange.respond("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + answer.length()
                + "\r\n\r\n" + answer.substring(0, answer.length() / 2));
        // ...and then silence on a connection that stays open.

        call.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        BudgetStatus status = awaitSettled("upstream_error");
        assertThat(status.spentMicros()).isZero();
    }

    @Test
    void countTokensWhoseUpstreamHangsUpAfterItsHeadersIsABadGatewayInAnthropicsShape(CapturedOutput output)
            throws Exception {
        CompletableFuture<TestHttp.Response> call = CompletableFuture.supplyAsync(() -> http.postJson(
                MESSAGES + "/count_tokens",
                AnthropicFixtures.request(OPUS, false, 1),
                "X-Worker-Token",
                worker.token()));
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.respond("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n");
        exchange.reset();

        TestHttp.Response response = call.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(response.status()).isEqualTo(502);
        assertThat(response.json().get("type").asString()).isEqualTo("error");
        assertThat(response.json().get("error").get("type").asString()).isEqualTo("api_error");
        assertThat(output.getAll()).doesNotContain("Unexpected error").doesNotContain("\tat app.talkide");
    }

    private EventStreamClient open(String body) {
        return new EventStreamClient("http://127.0.0.1:" + port + MESSAGES, worker.token(), body);
    }

    private BudgetStatus awaitSettled(String outcome) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(record()).containsEntry("outcome", outcome));
        BudgetStatus status = budgets.status(worker.userId());
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        return status;
    }

    private Map<String, Object> record() {
        return jdbc
                .sql("select * from usage_record where user_id = :user")
                .param("user", worker.userId())
                .query()
                .listOfRows()
                .stream()
                .findFirst()
                .orElse(Map.of());
    }
}
