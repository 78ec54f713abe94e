package app.talkide.controlplane.token.security;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/** Nothing under /api/internal/** answers without a valid WorkerToken, whatever the path or method. */
@DatabaseTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class InternalApiLockdownTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    ApplicationContext context;

    @Autowired
    WorkerTokenIssuer issuer;

    TestHttp http;
    TenantEnvironmentId acme;
    Conversation conversation;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        acme = Fixtures.tenantEnvironment(context);
        conversation = Fixtures.conversation(context, acme, "alice");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/internal/worker/whoami",
                "/api/internal/worker/usage",
                "/api/internal/gateway/anthropic/v1/messages",
                "/api/internal/does-not-exist",
                "/api/internal/",
                "/api/internal/%2e%2e/admin",
                "/api/internal/worker/..;/whoami",
                "/api/INTERNAL/worker/whoami"
            })
    void everyInternalPathRefusesCallsWithoutAToken(String path) {
        for (String method : new String[] {"GET", "POST", "PUT", "DELETE"}) {
            TestHttp.Response response = http.send(http.request(path)
                    .method(method, HttpRequest.BodyPublishers.ofString("{}"))
                    .header("Content-Type", "application/json")
                    .build());
            assertThat(response.status()).as(method + " " + path).isIn(400, 401, 403, 404);
            assertThat(response.status())
                    .as(method + " " + path + " must not be served")
                    .isNotEqualTo(200);
        }
    }

    @Test
    void aLargeRefusedBodyIsNotReadAndTheConnectionIsClosed() {
        // Only the headers are sent: the answer comes without waiting for the 200 KB declared. (A client
        // still sending the body would race the server's close: its unread bytes reset the connection.)
        String head = "POST /api/internal/worker/usage HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nX-Worker-Token: not-a-token\r\nContent-Length: 200000\r\n\r\n";
        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(10))) {
            String response = raw.send(head).response();

            assertThat(RawHttp.status(response)).isEqualTo(401);
            assertThat(response.toLowerCase(Locale.ROOT)).contains("\r\nconnection: close\r\n");
        }
    }

    @Test
    void aSmallRefusedBodyIsReadSoTheConnectionStaysOpen() {
        TestHttp.Response response =
                http.postJson("/api/internal/worker/usage", "{\"small\":true}", "X-Worker-Token", "not-a-token");

        assertThat(response.status()).isEqualTo(401);
        assertThat(response.header("connection")).isNull();
    }

    @Test
    void missingTokenIsCountedByReason() {
        http.get("/api/internal/worker/whoami");
        assertThat(http.get("/api/internal/worker/whoami").status()).isEqualTo(401);
        assertThat(new TestHttp(managementPort).get("/actuator/prometheus").body())
                .contains("talkide_worker_token_rejections_total{")
                .contains("reason=\"missing\"");
    }

    @Test
    void oversizedTokenIsRefused() {
        TestHttp.Response response = http.get("/api/internal/worker/whoami", "X-Worker-Token", "e".repeat(5000));
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.body()).contains("oversized").doesNotContain("eeeeeeeeee");
    }

    @Test
    void malformedTokenIsRefusedWithoutEchoingIt() {
        TestHttp.Response response =
                http.get("/api/internal/worker/whoami", "X-Worker-Token", "secret-looking.garbage.value");
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.body()).contains("malformed").doesNotContain("secret-looking");
    }

    @Test
    void validlySignedTokenForAConversationOfAnotherTenantEnvironmentIsRefused() {
        TenantEnvironmentId globex = Fixtures.tenantEnvironment(context);
        Conversation theirs = Fixtures.conversation(context, globex, "alice");
        // As if acme's key had signed a claim to globex's conversation: the conversation's real scope disagrees.
        String token =
                issuer.issue(new ConversationScope(theirs.id(), acme, "alice")).token();
        TestHttp.Response response = http.get("/api/internal/worker/whoami", "X-Worker-Token", token);
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.body()).contains("wrong_scope");
    }

    @Test
    void tokenForAnotherUserOrUnknownConversationIsRefused() {
        String otherUser = issuer.issue(new ConversationScope(conversation.id(), acme, "mallory"))
                .token();
        String unknown = issuer.issue(new ConversationScope(UUID.randomUUID(), acme, "alice"))
                .token();
        assertThat(http.get("/api/internal/worker/whoami", "X-Worker-Token", otherUser)
                        .status())
                .isEqualTo(401);
        assertThat(http.get("/api/internal/worker/whoami", "X-Worker-Token", unknown)
                        .status())
                .isEqualTo(401);
    }

    @Test
    void browserCredentialsDoNotOpenTheInternalApi() {
        assertThat(http.get("/api/internal/worker/whoami", "Authorization", TestHttp.basic("dev", "dev"))
                        .status())
                .isEqualTo(401);
    }

    @Test
    void validTokenIsAccepted() {
        String token = issuer.issue(conversation.scope()).token();
        assertThat(http.get("/api/internal/worker/whoami", "X-Worker-Token", token)
                        .status())
                .isEqualTo(200);
    }
}
