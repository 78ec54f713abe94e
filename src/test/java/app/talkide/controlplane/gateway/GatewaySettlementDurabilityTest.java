package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A call's usage is durable before the worker gets its final bytes: while the database cannot commit
 * the settlement (the user's row is locked by another transaction), the stream's {@code message_stop}
 * and the last byte of a JSON answer are held back; the moment they arrive, the usage record and the
 * spend are committed, so a crash of the gateway after the worker saw the call complete loses nothing.
 */
// Its own context (own upstream): closed after the class so its connections go back to PostgreSQL.
@DirtiesContext
@DatabaseTest
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"talkide.gateway.api-key=" + API_KEY})
class GatewaySettlementDurabilityTest {

    // Generous: the first call of a fresh context on a loaded two-core machine can take seconds.
    static final Duration WAIT = Duration.ofSeconds(30);
    static final Duration HELD = Duration.ofMillis(1_500);
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

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcClient jdbc;

    GatewayTestSupport worker;

    @BeforeEach
    void setUp() {
        worker = GatewayTestSupport.newWorker(context);
    }

    @Test
    void messageStopWaitsUntilTheUsageIsCommitted() throws Exception {
        List<String> events = AnthropicFixtures.textStream(OPUS, AnthropicFixtures.usage(1000, 0, 0, 1), 3, "hi", 7);
        String stop = events.getLast();
        try (EventStreamClient client = new EventStreamClient(
                "http://127.0.0.1:" + port + MESSAGES, worker.token(), AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            exchange.startEventStream();
            for (String event : events.subList(0, events.size() - 1)) {
                exchange.send(event);
                assertThat(client.next(WAIT)).isEqualTo(event);
            }
            try (Connection lock = lockBudgetRow()) {
                exchange.send(stop);
                exchange.end();
                // The upstream is done, but the settlement cannot commit: the worker must not see the stop.
                assertThat(client.poll(HELD)).isNull();
                assertThat(usageRecords()).isEmpty();
                lock.rollback();
            }
            assertThat(client.next(WAIT)).isEqualTo(stop);
            // No waiting here: once the worker has message_stop, the usage is committed.
            assertThat(usageRecords())
                    .singleElement()
                    .satisfies(row -> assertThat(row)
                            .containsEntry("outcome", "completed")
                            .containsEntry("input_tokens", 1000L)
                            .containsEntry("output_tokens", 7L));
            // 1000 input × $5/M + 7 output × $25/M = 5000 + 175 µ$.
            assertThat(spent()).isEqualTo(5_175);
        }
    }

    @Test
    void aStreamEndingInAnErrorEventWithoutMessageStopEndsOnlyOnceItsUsageIsCommitted() throws Exception {
        String start = AnthropicFixtures.messageStart(OPUS, AnthropicFixtures.usage(1000, 0, 0, 1));
        String delta = AnthropicFixtures.textDelta(0, "partial answer");
        String error = AnthropicFixtures.event(
                "error", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        try (EventStreamClient client = new EventStreamClient(
                "http://127.0.0.1:" + port + MESSAGES, worker.token(), AnthropicFixtures.request(OPUS, true, 1024))) {
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            exchange.startEventStream();
            exchange.send(start);
            assertThat(client.next(WAIT)).isEqualTo(start);
            exchange.send(delta);
            assertThat(client.next(WAIT)).isEqualTo(delta);
            try (Connection lock = lockBudgetRow()) {
                exchange.send(error);
                exchange.end();
                // The error event is passed through at once; the end of the response waits for the usage.
                assertThat(client.next(WAIT)).isEqualTo(error);
                assertThat(client.poll(HELD)).isNull();
                assertThat(usageRecords()).isEmpty();
                lock.rollback();
            }
            assertThat(client.next(WAIT)).isEqualTo(EventStreamClient.END);
            assertThat(usageRecords())
                    .singleElement()
                    .satisfies(row -> assertThat(row)
                            .containsEntry("outcome", "upstream_error")
                            .containsEntry("input_tokens", 1000L));
        }
    }

    @Test
    void theLastByteOfAJsonAnswerWaitsUntilTheUsageIsCommitted() throws Exception {
        CompletableFuture<TestHttp.Response> call = CompletableFuture.supplyAsync(() -> new TestHttp(port)
                .postJson(MESSAGES, AnthropicFixtures.request(OPUS, false, 1024), "X-Worker-Token", worker.token()));
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        String answer = AnthropicFixtures.json(OPUS, AnthropicFixtures.usage(2000, 0, 0, 40));
        try (Connection lock = lockBudgetRow()) {
            // Connection: close, so the gateway's client does not keep this socket for the next test's call
            // (this upstream reads one request per connection).
            exchange.respond("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                    + "Content-Length: " + answer.length() + "\r\n\r\n" + answer);
            assertThat(call).failsWithin(HELD).withThrowableOfType(TimeoutException.class);
            assertThat(usageRecords()).isEmpty();
            lock.rollback();
        }
        TestHttp.Response response = call.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(answer);
        assertThat(usageRecords())
                .singleElement()
                .satisfies(row ->
                        assertThat(row).containsEntry("outcome", "completed").containsEntry("output_tokens", 40L));
        // 2000 input × $5/M + 40 output × $25/M = 10000 + 1000 µ$.
        assertThat(spent()).isEqualTo(11_000);
    }

    /** Locks the user's budget row in a transaction of its own: settlement's update must wait for it. */
    private Connection lockBudgetRow() throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        try (PreparedStatement select =
                connection.prepareStatement("select user_id from user_budget where user_id = ? for update")) {
            select.setString(1, worker.userId());
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next())
                        .as("the call's reservation created the user's row")
                        .isTrue();
            }
        }
        return connection;
    }

    private List<Map<String, Object>> usageRecords() {
        return jdbc.sql("select * from usage_record where user_id = :user")
                .param("user", worker.userId())
                .query()
                .listOfRows();
    }

    private long spent() {
        return jdbc.sql("select spent_micros from user_budget where user_id = :user")
                .param("user", worker.userId())
                .query(Long.class)
                .single();
    }
}
