package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Admission takes the user's concurrent slot before the body is read, over real sockets: slow uploads of
 * one user stop at that user's concurrency limit while other users' calls go through, and however a call
 * ends (body too slow, too large or not valid, the worker gone mid-body, an upstream error) its slot and
 * every reservation go back.
 */
@DatabaseTest
@GatewayWireMockContext
class GatewayAdmissionTest {

    static final String COUNT_TOKENS = MESSAGES + "/count_tokens";

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
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(AnthropicFixtures.json(OPUS, AnthropicFixtures.usage(1, 0, 0, 1)))));
    }

    @Test
    void slowUploadsOfOneUserStopAtTheirConcurrencyLimitWhileAnotherUsersCallsGoThrough() {
        budgets.configure(worker.userId(), new UserBudgetSettings(null, null, 3, null, null));
        List<RawHttp> uploads = new ArrayList<>();
        try {
            // Three uploads whose bodies have not arrived hold the user's three slots.
            for (int i = 0; i < 3; i++) {
                RawHttp upload = new RawHttp(port, Duration.ofSeconds(10));
                uploads.add(upload);
                upload.send(head(MESSAGES, worker.token(), 1024) + "{");
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> budgets.status(worker.userId()).callsInFlight() == 3);

            // The fourth and fifth are refused at once, before the gateway reads (or waits for) their bodies.
            for (int i = 0; i < 2; i++) {
                try (RawHttp more = new RawHttp(port, Duration.ofSeconds(10))) {
                    String refused = more.send(head(MESSAGES, worker.token(), 1024) + "{")
                            .response();
                    assertThat(RawHttp.status(refused)).isEqualTo(429);
                    assertThat(refused)
                            .contains("x-talkide-denial-reason: fair_use")
                            .contains("at most 3 calls at once");
                }
            }
            // Another user of the same replica is not held up by them.
            GatewayTestSupport other = GatewayTestSupport.newWorker(context);
            assertThat(new TestHttp(port)
                            .postJson(
                                    MESSAGES,
                                    AnthropicFixtures.request(OPUS, false, 10),
                                    "X-Worker-Token",
                                    other.token())
                            .status())
                    .isEqualTo(200);
        } finally {
            // The worker goes away mid-body: the uploads' slots go back.
            uploads.forEach(RawHttp::close);
        }
        assertNothingHeld(worker.userId());
        upstream.verify(1, anyRequestedFor(anyUrl()));
    }

    @Test
    void aBodyPastItsReadDeadlineGivesItsSlotBack() {
        try (RawHttp slow = new RawHttp(port, Duration.ofSeconds(10))) {
            slow.send(head(MESSAGES, worker.token(), 1024) + "{");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> budgets.status(worker.userId()).callsInFlight() == 1);
            String response = slow.response();
            assertThat(RawHttp.status(response)).isEqualTo(408);
        }
        assertNothingHeld(worker.userId());
    }

    @Test
    void aBodyThatIsNotARequestOrTooLargeGivesItsSlotBack() {
        TestHttp http = new TestHttp(port);
        assertThat(http.postJson(MESSAGES, "{\"model\":", "X-Worker-Token", worker.token())
                        .status())
                .isEqualTo(400);
        assertThat(http.postJson(COUNT_TOKENS, "[]", "X-Worker-Token", worker.token())
                        .status())
                .isEqualTo(400);
        try (RawHttp large = new RawHttp(port, Duration.ofSeconds(10))) {
            assertThat(RawHttp.status(large.send(head(MESSAGES, worker.token(), 1024 * 1024))
                            .response()))
                    .isEqualTo(413);
        }
        assertNothingHeld(worker.userId());
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    @Test
    void upstreamErrorsGiveTheSlotAndTheReservationBack() {
        upstream.stubFor(post(urlPathEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(500)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}")));
        upstream.stubFor(post(urlPathEqualTo("/v1/messages/count_tokens"))
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        TestHttp http = new TestHttp(port);

        assertThat(http.postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 100), "X-Worker-Token", worker.token())
                        .status())
                .isEqualTo(500);
        assertThat(http.postJson(
                                COUNT_TOKENS,
                                AnthropicFixtures.request(OPUS, false, 100),
                                "X-Worker-Token",
                                worker.token())
                        .status())
                .isEqualTo(502);
        assertNothingHeld(worker.userId());
    }

    @Test
    void aCallTheBudgetCannotCoverIsRefusedAfterItsBodyAndGivesItsSlotBack() {
        // $0.01 does not cover Opus's first output slice (4,096 tokens at $25 per million).
        budgets.configure(worker.userId(), new UserBudgetSettings(10_000L, null, null, null, null));

        TestHttp.Response refused = new TestHttp(port)
                .postJson(MESSAGES, AnthropicFixtures.request(OPUS, true, 100_000), "X-Worker-Token", worker.token());

        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.json().path("error").path("type").asString()).isEqualTo("rate_limit_error");
        assertThat(refused.json().path("error").path("message").asString()).contains("Spending limit");
        assertNothingHeld(worker.userId());
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    /**
     * Nothing held for the user, as they see it and in the database itself once this replica's idle
     * lease went back (after {@code lease.idle}, 2 s).
     */
    private void assertNothingHeld(String userId) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            BudgetStatus status = budgets.status(userId);
            assertThat(status.callsInFlight()).isZero();
            assertThat(status.reservedMicros()).isZero();
        });
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(
                                jdbc.sql("select in_flight, reserved_micros from user_budget where user_id = :user")
                                        .param("user", userId)
                                        .query((rs, row) -> List.of(rs.getLong(1), rs.getLong(2)))
                                        .single())
                        .containsExactly(0L, 0L));
        assertThat(jdbc.sql("select count(*) from budget_reservation where user_id = :user")
                        .param("user", userId)
                        .query(Long.class)
                        .single())
                .isZero();
    }

    private static String head(String path, String token, int contentLength) {
        return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Worker-Token: " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }
}
