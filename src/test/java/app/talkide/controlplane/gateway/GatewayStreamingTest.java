package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mockingDetails;

import app.talkide.controlplane.budget.BudgetStatus;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
import org.springframework.test.context.bean.override.mockito.MockReset;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

/**
 * Streaming as a worker sees it, against an upstream the test writes byte by byte: no event waits for
 * the next, a hang-up cancels the upstream and bills only what was produced, a broken upstream ends the
 * stream with an error event. And when something under the gateway fails (the budget's database while a
 * stream runs, an upstream that goes silent or hangs up in a plain JSON body), each call still ends, is
 * billed for what it used, gives its reservation and concurrency slot back, and the worker gets
 * Anthropic's error shape, never a stack trace.
 */
// Its own context (own upstream or users): closed after the class so its connections go back to PostgreSQL.
@DirtiesContext
@DatabaseTest
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.gateway.api-key=" + API_KEY, "talkide.gateway.stream-idle-timeout=2s"})
class GatewayStreamingTest {

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

    // Stubbed once, before the context serves anything, and never reset: Mockito's stubbing is not safe
    // while another thread calls the spy (a previous test's call still giving its slot back would take
    // the stub for itself). Each test switches the failure on through the flag instead.
    @MockitoSpyBean(reset = MockReset.NONE)
    UserBudgetService budgets;

    static final AtomicBoolean extensionsFail = new AtomicBoolean();

    @Autowired
    JdbcClient jdbc;

    GatewayTestSupport worker;
    TestHttp http;

    @BeforeEach
    void setUp() {
        if (mockingDetails(budgets).getStubbings().isEmpty()) {
            doAnswer(call -> {
                        if (extensionsFail.get()) {
                            throw new CannotAcquireLockException("lock wait timeout");
                        }
                        return call.callRealMethod();
                    })
                    .when(budgets)
                    .extend(any(), anyLong());
        }
        worker = GatewayTestSupport.newWorker(context);
        http = new TestHttp(port);
    }

    @AfterEach
    void realBudget() {
        extensionsFail.set(false);
    }

    @Test
    void everyEventReachesTheWorkerBeforeTheUpstreamSendsTheNext() throws Exception {
        List<String> events = AnthropicFixtures.textStream(OPUS, AnthropicFixtures.usage(10, 0, 0, 1), 20, "tok", 20);
        try (EventStreamClient client = open(AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            assertThat(exchange.header("x-api-key")).isEqualTo(API_KEY);
            assertThat(exchange.header("x-worker-token")).isNull();
            exchange.startEventStream();
            for (String event : events) {
                // Split each event across two writes, then pause: the worker must see it whole, now.
                int half = event.length() / 2;
                exchange.send(event.substring(0, half));
                exchange.send(event.substring(half));
                assertThat(client.next(WAIT)).isEqualTo(event);
            }
            exchange.end();
            assertThat(client.next(WAIT)).isEqualTo(EventStreamClient.END);
        }
        awaitSettled("completed");
    }

    @Test
    void theAnswerEndsWithMessageStopEvenWhileTheUpstreamHoldsItsStreamOpen() throws Exception {
        List<String> events = AnthropicFixtures.textStream(OPUS, AnthropicFixtures.usage(10, 0, 0, 1), 3, "tok", 3);
        try (EventStreamClient client = open(AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            exchange.startEventStream();
            for (String event : events) {
                exchange.send(event);
            }
            for (String event : events) {
                assertThat(client.next(WAIT)).isEqualTo(event);
            }
            // The upstream has not ended its body, but message_stop is the protocol's last event.
            assertThat(client.next(WAIT)).isEqualTo(EventStreamClient.END);
            assertThat(record()).containsEntry("outcome", "completed");
            // Nothing the upstream does afterwards reaches the worker or changes what was booked. An upstream
            // that keeps its body open (pinging, so it never looks idle) is hung up on after the drain grace.
            long answered = System.nanoTime();
            boolean hungUp = false;
            while (!hungUp && System.nanoTime() - answered < WAIT.toNanos()) {
                exchange.trySend(AnthropicFixtures.event("ping", "{\"type\":\"ping\"}"));
                hungUp = exchange.closedByPeer(Duration.ofMillis(200));
            }
            assertThat(hungUp)
                    .as("the gateway let go of an upstream that never ended")
                    .isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - answered)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
        assertThat(record()).containsEntry("outcome", "completed").containsEntry("output_tokens", 3L);
        // Nor does the call hold a stream any more.
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(context.getBean(MeterRegistry.class)
                                .get("talkide.gateway.streams.open")
                                .gauge()
                                .value())
                        .isZero());
    }

    @Test
    void aWorkerThatHangsUpMidStreamCancelsTheUpstreamAndPaysForWhatWasProduced() throws Exception {
        EventStreamClient client = open(AnthropicFixtures.request(OPUS, true, 128000));
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.startEventStream();
        List<String> events =
                AnthropicFixtures.textStream(OPUS, AnthropicFixtures.usage(2000, 0, 0, 1), 10, "x".repeat(30), 0);
        for (String event : events.subList(0, 13)) { // message_start, block start, ping, 10 deltas
            exchange.send(event);
            client.next(WAIT);
        }

        client.close();

        // The gateway closes its upstream connection: the upstream's writes start failing.
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !exchange.trySend(AnthropicFixtures.event("ping", "{\"type\":\"ping\"}")));
        // Cut before its message_delta, the stream is billed at least the output reserved for it (one slice,
        // 4096 tokens), not the ~100 tokens its visible deltas suggest: thinking and non-Latin text produce
        // more than they show. 2000 input × $5/M = 10000 µ$ + 4096 output × $25/M = 102400 µ$.
        BudgetStatus status = awaitSettled("client_cancelled");
        assertThat(status.spentMicros()).isEqualTo(112_400);
        assertThat(record()).containsEntry("input_tokens", 2000L).containsEntry("output_tokens", 4096L);
    }

    @Test
    void aStreamWithThinkingReservesItsBudgetUpFrontAndACutOneIsBilledForIt() throws Exception {
        String thinking = "{\"model\":\"" + OPUS + "\",\"max_tokens\":32000,\"stream\":true,"
                + "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":10000},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Think hard\"}]}";
        EventStreamClient client = open(thinking);
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.startEventStream();
        String start = AnthropicFixtures.messageStart(OPUS, AnthropicFixtures.usage(2000, 0, 0, 1));
        exchange.send(start);
        assertThat(client.next(WAIT)).isEqualTo(start);
        // Thinking shown as nothing but a signature (omitted): the deltas tell nothing of its length.
        String block = AnthropicFixtures.event(
                "content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}");
        exchange.send(block);
        assertThat(client.next(WAIT)).isEqualTo(block);
        // Reserved while it runs: 2000 input and the thinking budget plus one slice of output.
        assertThat(budgets.status(worker.userId()).reservedMicros()).isGreaterThanOrEqualTo(10_000 + 14_096 * 25);

        client.close();
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !exchange.trySend(AnthropicFixtures.event("ping", "{\"type\":\"ping\"}")));
        // 2000 input × $5/M = 10000 µ$ + (10000 thinking + 4096) output × $25/M = 352400 µ$.
        BudgetStatus status = awaitSettled("client_cancelled");
        assertThat(status.spentMicros()).isEqualTo(362_400);
        assertThat(record()).containsEntry("output_tokens", 14_096L);
    }

    @Test
    void anUpstreamThatResetsMidEventEndsTheStreamWithAnErrorEvent() throws Exception {
        try (EventStreamClient client = open(AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            exchange.startEventStream();
            String start = AnthropicFixtures.messageStart(OPUS, AnthropicFixtures.usage(1000, 0, 0, 1));
            exchange.send(start);
            assertThat(client.next(WAIT)).isEqualTo(start);
            exchange.send(AnthropicFixtures.textDelta(0, "half an ev"));
            assertThat(client.next(WAIT)).isEqualTo(AnthropicFixtures.textDelta(0, "half an ev"));
            exchange.send("event: content_block_delta\ndata: {\"type\":");
            exchange.reset();

            String error = client.next(WAIT);
            assertThat(error).startsWith("event: error\n").contains("\"api_error\"");
            assertThat(client.next(WAIT)).isEqualTo(EventStreamClient.END);
        }
        BudgetStatus status = awaitSettled("upstream_error");
        // 1000 input × $5/M = 5000 µ$ plus the output reserved (max_tokens 1024) × $25/M = 25600 µ$.
        assertThat(status.spentMicros()).isEqualTo(30_600);
    }

    @Test
    void aStreamThatGoesSilentIsEndedWithAnErrorEventAndBilledForWhatItUsed() throws Exception {
        try (EventStreamClient client = open(AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            exchange.startEventStream();
            String start = AnthropicFixtures.messageStart(OPUS, AnthropicFixtures.usage(1000, 0, 0, 1));
            exchange.send(start);
            assertThat(client.next(WAIT)).isEqualTo(start);
            // ...and then nothing, not even a ping: the connection died without telling anyone.

            assertThat(client.next(WAIT))
                    .startsWith("event: error\n")
                    .contains("\"api_error\"")
                    .contains("sent nothing");
            assertThat(client.next(WAIT)).isEqualTo(EventStreamClient.END);
        }
        // 1000 input × $5/M = 5000 µ$ plus the output reserved (max_tokens 1024) × $25/M = 25600 µ$.
        assertThat(awaitSettled("upstream_error").spentMicros()).isEqualTo(30_600);
    }

    @Test
    void aDatabaseFailureWhileExtendingEndsTheStreamAndStillBillsWhatWasUsed(CapturedOutput output) throws Exception {
        extensionsFail.set(true);
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
        // 10,000 input × $5/M = 50,000 µ$ plus the output reserved (max_tokens 1024) × $25/M = 25600 µ$.
        assertThat(awaitSettled("upstream_error").spentMicros()).isEqualTo(75_600);
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
