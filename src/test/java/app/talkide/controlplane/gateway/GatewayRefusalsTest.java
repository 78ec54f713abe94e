package app.talkide.controlplane.gateway;

import static app.talkide.controlplane.gateway.GatewayTestSupport.API_KEY;
import static app.talkide.controlplane.gateway.GatewayTestSupport.MESSAGES;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.support.WireMockUpstream;
import app.talkide.controlplane.support.WithWireMockUpstream;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every answer the gateway gives a call it refuses, to the byte: status, content type and the
 * Anthropic-shaped body (only the random request id varies). Written while the gateway sat behind Spring
 * Security and Spring MVC and kept unchanged when it left them, so it shows the refusals did not change.
 * None of them reaches the upstream.
 */
@DatabaseTest
@Import(ClockTestConfiguration.class)
@WithWireMockUpstream
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "talkide.gateway.api-key=" + API_KEY)
class GatewayRefusalsTest {

    static final String BODY = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":16,\"messages\":[]}";
    static final String NOT_FOUND =
            "Not found: the gateway serves POST /v1/messages and POST /v1/messages/count_tokens.";
    /** A refused token's answer has an id of its own; a call's is its usage record's id. */
    static final String RANDOM_ID = "gw_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

    static final String CALL_ID = "gw_[0-9a-f]{32}";

    static final WireMockServer upstream = WireMockUpstream.server();

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    MutableClock clock;

    TestHttp http;
    GatewayTestSupport worker;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        worker = GatewayTestSupport.newWorker(context);
    }

    @AfterEach
    void nothingReachedTheUpstream() {
        assertThat(upstream.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    @Test
    void missingTokenIsAnAuthenticationError() {
        assertRefusedToken(http.postJson(MESSAGES, BODY), "missing");
    }

    @Test
    void tokenWithABadSignatureIsAnAuthenticationError() {
        String[] parts = worker.token().split("\\.");
        char flipped = parts[2].charAt(10) == 'A' ? 'B' : 'A';
        String forged = parts[0] + "." + parts[1] + "." + parts[2].substring(0, 10) + flipped + parts[2].substring(11);
        assertRefusedToken(http.postJson(MESSAGES, BODY, "X-Worker-Token", forged), "bad_signature");
    }

    @Test
    void expiredTokenIsAnAuthenticationError() {
        clock.advance(Duration.ofMinutes(3));
        assertRefusedToken(http.postJson(MESSAGES, BODY, "X-Worker-Token", worker.token()), "expired");
    }

    @Test
    void tokenForAnotherUsersScopeIsAnAuthenticationError() {
        String mallory = context.getBean(WorkerTokenIssuer.class)
                .issue(new ConversationScope(worker.conversation().id(), worker.tenantEnvironment(), "mallory"))
                .token();
        assertRefusedToken(http.postJson(MESSAGES, BODY, "X-Worker-Token", mallory), "wrong_scope");
    }

    @Test
    void tokenOfAnOwnerWhoseMembershipWasRevokedIsAnAuthenticationError() {
        assertThat(context.getBean(Memberships.class).revoke(worker.tenantEnvironment(), worker.userId()))
                .isTrue();
        assertRefusedToken(http.postJson(MESSAGES, BODY, "X-Worker-Token", worker.token()), "wrong_scope");
    }

    @Test
    void bodyDeclaredLargerThanTheLimitIsRequestTooLarge() {
        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(30))) {
            String response = raw.send("POST " + MESSAGES + " HTTP/1.1\r\nHost: localhost\r\nX-Worker-Token: "
                            + worker.token() + "\r\nContent-Type: application/json\r\nContent-Length: "
                            + (40L * 1024 * 1024) + "\r\n\r\n{")
                    .response();
            assertThat(RawHttp.status(response)).isEqualTo(413);
            String body = response.substring(response.indexOf("\r\n\r\n") + 4);
            String requestId = TestHttp.JSON.readTree(body).get("request_id").asString();
            assertThat(requestId).matches(CALL_ID);
            assertThat(response.toLowerCase(java.util.Locale.ROOT))
                    .contains("x-talkide-request-id: " + requestId)
                    .contains("content-type: application/json");
            assertThat(body)
                    .isEqualTo(anthropicError(
                            "request_too_large",
                            "Request body is larger than the gateway's limit of 33554432 bytes.",
                            requestId));
        }
    }

    @Test
    void anotherMethodOrPathUnderThePrefixIsNotFound() {
        String token = worker.token();
        assertNotFound(http.get(MESSAGES, "X-Worker-Token", token));
        assertNotFound(http.postJson(MESSAGES + "/", BODY, "X-Worker-Token", token));
        assertNotFound(http.postJson("/api/internal/gateway/anthropic/v1/models", BODY, "X-Worker-Token", token));
    }

    /**
     * A refused call whose body comes after its head: the refusal reads the small body first, so the
     * worker's next call on the same keep-alive connection is answered (Jetty would otherwise close the
     * connection after the answer, and the next call would get no answer at all).
     */
    @Test
    void theNextCallOnTheConnectionOfARefusedOneIsAnswered() {
        String token = worker.token();
        String head = "POST " + MESSAGES + "/ HTTP/1.1\r\nHost: localhost\r\nX-Worker-Token: " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + BODY.length() + "\r\n\r\n";
        String next = "POST /api/internal/gateway/anthropic/v1/models HTTP/1.1\r\nHost: localhost\r\nX-Worker-Token: "
                + token + "\r\nContent-Length: 0\r\n\r\n";
        try (RawHttp connection = new RawHttp(port, Duration.ofSeconds(10))) {
            String refused = connection
                    .send(head)
                    .pause(Duration.ofMillis(300))
                    .send(BODY)
                    .response();
            assertThat(RawHttp.status(refused)).isEqualTo(404);
            assertThat(refused.toLowerCase(java.util.Locale.ROOT)).doesNotContain("connection: close");
            assertThat(RawHttp.status(connection.send(next).response())).isEqualTo(404);
        }
    }

    @Test
    void pathTheFirewallRefusesIsNotFoundEvenWithoutAToken() {
        assertNotFound(http.send(http.request(MESSAGES + ";jsessionid=1")
                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                .build()));
    }

    @Test
    void theLongContextBetaIsRefusedUntilItIsPriced() {
        TestHttp.Response response = http.postJson(
                MESSAGES,
                BODY,
                "X-Worker-Token",
                worker.token(),
                "anthropic-beta",
                "interleaved-thinking-2025-05-14,context-1m-2025-08-07");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.json().path("error").path("type").asString()).isEqualTo("invalid_request_error");
        assertThat(response.json().path("error").path("message").asString())
                .contains("1M-token context beta")
                .contains("does not price");
    }

    @Test
    void aServerToolBilledBeyondTokensIsRefusedUntilItIsPriced() {
        String body = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":16,\"messages\":[],"
                + "\"system\":[{\"type\":\"text\",\"text\":\"hi\"}],"
                + "\"tools\":[{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\"}},"
                + "{\"type\":\"web_search_20250305\",\"name\":\"web_search\",\"max_uses\":5}]}";
        TestHttp.Response response = http.postJson(MESSAGES, body, "X-Worker-Token", worker.token());
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.json().path("error").path("message").asString())
                .isEqualTo("tools: the server tool web_search_20250305 is billed beyond tokens, which this gateway"
                        + " does not price yet, so it is not available.");
    }

    @Test
    void headerValueTheFirewallRefusesIsNotFoundNotAServerError() {
        // 0x85 (NEL) is a control character: Jetty accepts the byte, Spring Security's header rules do not.
        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(30))) {
            String response = raw.send("POST " + MESSAGES + " HTTP/1.1\r\nHost: localhost\r\nX-Worker-Token: "
                            + worker.token() + "\r\nanthropic-beta: tools\u0085x\r\nContent-Type: application/json"
                            + "\r\nContent-Length: " + BODY.length() + "\r\n\r\n" + BODY)
                    .response();
            assertThat(RawHttp.status(response)).isEqualTo(404);
            String body = response.substring(response.indexOf("\r\n\r\n") + 4);
            assertThat(body).isEqualTo(anthropicError("not_found_error", NOT_FOUND, "gw_not_found"));
        }
    }

    @Test
    void queryThatCannotBeForwardedIsAnInvalidRequest() {
        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(30))) {
            String response = raw.send("POST " + MESSAGES + "?beta=a|b HTTP/1.1\r\nHost: localhost\r\nX-Worker-Token: "
                            + worker.token() + "\r\nContent-Type: application/json\r\nContent-Length: "
                            + BODY.length() + "\r\n\r\n" + BODY)
                    .response();
            assertThat(RawHttp.status(response)).isEqualTo(400);
            String body = response.substring(response.indexOf("\r\n\r\n") + 4);
            String requestId = TestHttp.JSON.readTree(body).get("request_id").asString();
            assertThat(requestId).matches(CALL_ID);
            assertThat(body)
                    .isEqualTo(anthropicError(
                            "invalid_request_error",
                            "The query string is not valid: characters such as | { } \" \\ ^ < > must be"
                                    + " percent-encoded, and % must start a valid escape.",
                            requestId));
        }
    }

    private static void assertRefusedToken(TestHttp.Response response, String reason) {
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.header("content-type")).startsWith("application/json");
        String requestId = response.json().get("request_id").asString();
        assertThat(requestId).matches(RANDOM_ID);
        assertThat(response.header("request-id")).isEqualTo(requestId);
        assertThat(response.body())
                .isEqualTo(anthropicError(
                        "authentication_error",
                        "Invalid X-Worker-Token (" + reason + "): mint a fresh WorkerToken for this conversation.",
                        requestId));
    }

    private static void assertNotFound(TestHttp.Response response) {
        assertThat(response.status()).isEqualTo(404);
        assertThat(response.header("content-type")).startsWith("application/json");
        assertThat(response.body()).isEqualTo(anthropicError("not_found_error", NOT_FOUND, "gw_not_found"));
    }

    /** The exact bytes of an Anthropic error body. */
    private static String anthropicError(String type, String message, String requestId) {
        ObjectNode root = TestHttp.JSON.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", type);
        error.put("message", message);
        root.put("request_id", requestId);
        return TestHttp.JSON.writeValueAsString(root);
    }
}
