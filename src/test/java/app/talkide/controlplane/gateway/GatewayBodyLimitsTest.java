package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.AnthropicFixtures.OPUS;
import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import app.talkide.controlplane.support.WithWireMockUpstream;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The gateway's body limits: checked before a body is read, bounded across all calls at once and per
 * user, and a body must arrive within an absolute deadline however slowly it trickles.
 */
@DirtiesContext
@DatabaseTest
@WithWireMockUpstream
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.gateway.api-key=" + API_KEY,
            "talkide.gateway.max-request-size=64KB",
            "talkide.gateway.max-bytes-in-flight=256KB",
            "talkide.gateway.max-bytes-in-flight-per-user=128KB",
            "talkide.gateway.body-read-timeout=3s"
        })
class GatewayBodyLimitsTest {

    /** Declared, never sent in full: the server can only answer such a request before reading it. */
    static final int DECLARED = 60 * 1024;

    static final WireMockServer upstream = WireMockUpstream.server();

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    UserBudgetService budgets;

    @Autowired
    MeterRegistry meters;

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
    void userOverFairUseIsRefusedBeforeTheGatewayReadsTheirUpload() {
        budgets.configure(worker.userId(), new UserBudgetSettings(null, null, null, 1, null));
        assertThat(new TestHttp(port)
                        .postJson(
                                MESSAGES, AnthropicFixtures.request(OPUS, false, 10), "X-Worker-Token", worker.token())
                        .status())
                .isEqualTo(200);

        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(10))) {
            String response =
                    raw.send(head(worker.token(), DECLARED) + "{\"model\":").response();

            assertThat(RawHttp.status(response)).isEqualTo(429);
            assertThat(response).contains("rate_limit_error").contains("x-talkide-denial-reason: fair_use");
        }
    }

    @Test
    void parallelLargeUploadsCannotHoldMoreThanTheInFlightLimit() {
        List<RawHttp> uploads = new ArrayList<>();
        try {
            // Four users' uploads of 60 KiB each hold 240 of the 256 KiB while their bodies trickle in.
            for (int i = 0; i < 4; i++) {
                RawHttp upload = new RawHttp(port, Duration.ofSeconds(10));
                uploads.add(upload);
                upload.send(head(GatewayTestSupport.newWorker(context).token(), DECLARED) + "{");
            }
            awaitHeld(4 * DECLARED);

            try (RawHttp fifth = new RawHttp(port, Duration.ofSeconds(10))) {
                String refused =
                        fifth.send(head(worker.token(), DECLARED) + "{").response();
                assertThat(RawHttp.status(refused)).isEqualTo(529);
                assertThat(refused).contains("overloaded_error").containsIgnoringCase("retry-after: 1");
            }
        } finally {
            uploads.forEach(RawHttp::close);
        }
        // The uploads that went away give their share back.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(chunked(48 * 1024).status()).isEqualTo(200));
        upstream.verify(1, anyRequestedFor(anyUrl()));
    }

    @Test
    void oneUsersUploadsCannotTakeMoreThanTheirShareWhileOthersStillGetThrough() {
        try (RawHttp first = new RawHttp(port, Duration.ofSeconds(10));
                RawHttp second = new RawHttp(port, Duration.ofSeconds(10))) {
            // Two of one user's uploads hold 120 of their 128 KiB share.
            first.send(head(worker.token(), DECLARED) + "{");
            second.send(head(worker.token(), DECLARED) + "{");
            awaitHeld(2 * DECLARED);

            try (RawHttp third = new RawHttp(port, Duration.ofSeconds(10))) {
                String refused =
                        third.send(head(worker.token(), DECLARED) + "{").response();
                assertThat(RawHttp.status(refused)).isEqualTo(429);
                assertThat(refused).contains("rate_limit_error").contains("x-talkide-denial-reason: fair_use");
            }
            // Another user of the same replica is not held up by them.
            GatewayTestSupport other = GatewayTestSupport.newWorker(context);
            TestHttp.Response theirs = new TestHttp(port)
                    .postJson(MESSAGES, AnthropicFixtures.request(OPUS, false, 10), "X-Worker-Token", other.token());
            assertThat(theirs.status()).isEqualTo(200);
        }
    }

    @Test
    void aBodyTricklingInPastTheReadDeadlineIsCutOffAndGivesItsShareBack() {
        try (RawHttp slow = new RawHttp(port, Duration.ofSeconds(20))) {
            slow.send(head(worker.token(), DECLARED) + "{");
            awaitHeld(DECLARED);
            // A byte now and then restarts an idle timeout, not the body's deadline (3 s here).
            for (int i = 0; i < 8; i++) {
                try {
                    slow.pause(Duration.ofMillis(500)).send(" ");
                } catch (UncheckedIOException cutOff) {
                    break; // the gateway closed the connection at the deadline
                }
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> heldBytes() == 0);
        }
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    private void awaitHeld(long bytes) {
        await().atMost(Duration.ofSeconds(10)).until(() -> heldBytes() >= bytes);
    }

    private double heldBytes() {
        return meters.get("talkide.gateway.request.bytes.held").gauge().value();
    }

    @Test
    void chunkedBodyOverTheLimitIs413InAnthropicShape() {
        TestHttp.Response response = chunked(100 * 1024);

        assertThat(response.status()).isEqualTo(413);
        assertThat(response.json().path("error").path("type").asString()).isEqualTo("request_too_large");
        upstream.verify(0, anyRequestedFor(anyUrl()));
    }

    /** A valid request padded to about {@code size} bytes, sent without a length (chunked). */
    private TestHttp.Response chunked(int size) {
        String body = "{\"model\":\"" + OPUS + "\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\""
                + "x".repeat(size) + "\"}]}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        TestHttp http = new TestHttp(port);
        return http.send(http.request(MESSAGES)
                .header("X-Worker-Token", worker.token())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes)))
                .build());
    }

    private String head(String token, int contentLength) {
        return "POST " + MESSAGES + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Worker-Token: " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }
}
