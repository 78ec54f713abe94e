package app.talkide.controlplane.token.mint;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.token.identity.IssuedIdentityToken;
import com.nimbusds.jwt.SignedJWT;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

@DatabaseTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(ClockTestConfiguration.class)
@TestPropertySource(properties = {"talkide.tokens.mint.rate-per-second=1", "talkide.tokens.mint.burst=5"})
class MintEndpointTest {

    static final String MINT = "/api/v1/worker-gateway/token/mint";

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    ApplicationContext context;

    @Autowired
    IdentityTokens identityTokens;

    @Autowired
    MutableClock clock;

    TestHttp http;
    TenantEnvironmentId acme;
    IssuedIdentityToken identity;
    Conversation conversation;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        acme = Fixtures.tenantEnvironment(context);
        identity = Fixtures.identityToken(context, acme);
        conversation = Fixtures.conversation(context, acme, "alice");
    }

    @Test
    void mintReturnsAWorkerTokenScopedToTheConversation() throws Exception {
        TestHttp.Response response = mint(identity.token(), conversation.id().toString());

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("expiresIn").asInt()).isEqualTo(120);
        String token = response.json().get("token").asString();
        var claims = SignedJWT.parse(token).getJWTClaimsSet();
        assertThat(claims.getStringClaim("tid")).isEqualTo(acme.tenant());
        assertThat(claims.getStringClaim("eid")).isEqualTo("dev");
        assertThat(claims.getStringClaim("cid")).isEqualTo(conversation.id().toString());
        assertThat(claims.getStringClaim("uid")).isEqualTo("alice");
        assertThat(claims.getExpirationTime().toInstant().getEpochSecond())
                .isEqualTo(
                        java.time.Instant.parse(response.json().get("expiresAt").asString())
                                .getEpochSecond());

        TestHttp.Response whoami = http.get("/api/internal/worker/whoami", "X-Worker-Token", token);
        assertThat(whoami.status()).isEqualTo(200);
        assertThat(whoami.json().get("conversationId").asString())
                .isEqualTo(conversation.id().toString());
        assertThat(whoami.json().get("userId").asString()).isEqualTo("alice");
    }

    @Test
    void removedMemberCannotHaveTheirWorkerMintOrSpendForThemAnyMore() {
        String token = mint(identity.token(), conversation.id().toString())
                .json()
                .get("token")
                .asString();
        assertThat(whoami(token).status()).isEqualTo(200);

        context.getBean(Memberships.class).revoke(acme, "alice");

        TestHttp.Response afterRemoval =
                mint(identity.token(), conversation.id().toString());
        assertThat(afterRemoval.status()).isEqualTo(403);
        assertThat(whoami(token).status()).isEqualTo(401);
    }

    @Test
    void tenantEnvironmentBeingDeletedMintsNothingAndItsWorkerTokensStopWorking() {
        String token = mint(identity.token(), conversation.id().toString())
                .json()
                .get("token")
                .asString();

        context.getBean(TenantEnvironments.class).changeStatus(acme, TenantEnvironmentStatus.DELETING);

        assertThat(mint(identity.token(), conversation.id().toString()).status())
                .isIn(401, 403);
        assertThat(whoami(token).status()).isEqualTo(401);
    }

    @Test
    void mintWithUnknownIdentityTokenIsUnauthorized() {
        TestHttp.Response response =
                mint("tkwi_" + "B".repeat(43), conversation.id().toString());
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.header("WWW-Authenticate")).contains("invalid_token");
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void mintWithoutBearerIsUnauthorized() {
        TestHttp.Response response = http.postJson(MINT, "{\"conversationId\":\"" + conversation.id() + "\"}");
        assertThat(response.status()).isEqualTo(401);
        TestHttp.Response basic = http.postJson(
                MINT,
                "{\"conversationId\":\"" + conversation.id() + "\"}",
                "Authorization",
                TestHttp.basic("dev", "dev"));
        assertThat(basic.status()).isEqualTo(401);
    }

    @Test
    void mintWhenUnauthenticatedThenUnauthorizedWhateverTheBody() {
        // Authentication comes first: a caller without a valid identity token learns nothing about
        // what a valid body looks like.
        TestHttp.Response malformedId = http.postJson(MINT, "{\"conversationId\":\"not-a-uuid\"}");
        TestHttp.Response notJson = http.postJson(MINT, "{oops", "Authorization", "Bearer tkwi_" + "D".repeat(43));
        TestHttp.Response empty = http.postJson(MINT, "{}");

        assertThat(malformedId.status()).isEqualTo(401);
        assertThat(malformedId.header("WWW-Authenticate")).contains("invalid_token");
        assertThat(notJson.status()).isEqualTo(401);
        assertThat(empty.status()).isEqualTo(401);
    }

    @Test
    void aRefusedMintWhoseBodyCameLateLeavesTheConnectionUsable() {
        // The 401 is decided from the headers alone; the body is still on its way. Were it left unread,
        // Jetty would close the connection after the answer and the caller's next request on it would fail.
        String body = "{\"conversationId\":\"" + conversation.id() + "\"}";
        String head = "POST " + MINT + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer tkwi_" + "E".repeat(43) + "\r\nContent-Length: " + body.length() + "\r\n\r\n";
        try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(10))) {
            String first =
                    raw.send(head).pause(Duration.ofMillis(300)).send(body).response();
            String second = raw.send(head + body).response();

            assertThat(RawHttp.status(first)).isEqualTo(401);
            assertThat(second).as("the next request on the same connection").startsWith("HTTP/1.1 401");
        }
    }

    @Test
    void mintWithRevokedIdentityTokenIsUnauthorized() {
        assertThat(mint(identity.token(), conversation.id().toString()).status())
                .isEqualTo(200);
        identityTokens.revoke(identity.id());
        assertThat(mint(identity.token(), conversation.id().toString()).status())
                .isEqualTo(401);
    }

    @Test
    void mintWithExpiredIdentityTokenIsUnauthorized() {
        clock.advance(Duration.ofDays(91));
        assertThat(mint(identity.token(), conversation.id().toString()).status())
                .isEqualTo(401);
    }

    @Test
    void mintWhenConversationBelongsToOtherTenantThenForbiddenWithTheSameBodyAsNonexistent() {
        TenantEnvironmentId globex = Fixtures.tenantEnvironment(context);
        Conversation theirs = Fixtures.conversation(context, globex, "bob");

        TestHttp.Response otherTenant = mint(identity.token(), theirs.id().toString());
        TestHttp.Response nonexistent = mint(identity.token(), UUID.randomUUID().toString());

        assertThat(otherTenant.status()).isEqualTo(403);
        assertThat(nonexistent.status()).isEqualTo(403);
        assertThat(otherTenant.body()).isEqualTo(nonexistent.body());
        assertThat(otherTenant.body()).doesNotContain(theirs.id().toString());
    }

    @Test
    void identityTokenOfAnotherTenantEnvironmentCannotMintHere() {
        TenantEnvironmentId globex = Fixtures.tenantEnvironment(context);
        IssuedIdentityToken theirIdentity = Fixtures.identityToken(context, globex);
        assertThat(mint(theirIdentity.token(), conversation.id().toString()).status())
                .isEqualTo(403);
    }

    @Test
    void mintOverTheRateIsTooManyRequestsWithRetryAfter() {
        for (int i = 0; i < 5; i++) {
            assertThat(mint(identity.token(), conversation.id().toString()).status())
                    .isEqualTo(200);
        }
        TestHttp.Response limited = mint(identity.token(), conversation.id().toString());
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("Retry-After")).isEqualTo("1");

        clock.advance(Duration.ofSeconds(1));
        assertThat(mint(identity.token(), conversation.id().toString()).status())
                .isEqualTo(200);
        // Another identity has its own bucket.
        assertThat(mint(identityTokens.issue(acme).token(), conversation.id().toString())
                        .status())
                .isEqualTo(200);
    }

    @Test
    void malformedBodiesAreBadRequests() {
        assertThat(mint(identity.token(), "not-a-uuid").status()).isEqualTo(400);
        assertThat(mint(identity.token(), "not-a-uuid").json().get("errors").toString())
                .contains("conversationId");
        TestHttp.Response notJson = http.postJson(MINT, "{oops", "Authorization", "Bearer " + identity.token());
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.header("Content-Type")).startsWith("application/problem+json");
        assertThat(http.postJson(MINT, "{}", "Authorization", "Bearer " + identity.token())
                        .status())
                .isEqualTo(400);
    }

    @Test
    void mintOutcomesAreCountedWithoutSecrets() {
        mint(identity.token(), conversation.id().toString());
        mint("tkwi_" + "C".repeat(43), conversation.id().toString());
        String metrics =
                new TestHttp(managementPort).get("/actuator/prometheus").body();
        assertThat(metrics)
                .contains("talkide_worker_token_mints_total{")
                .contains("outcome=\"issued\"")
                .contains("outcome=\"unauthenticated\"");
        assertThat(metrics).doesNotContain(identity.token()).doesNotContain("tkwi_");
    }

    private TestHttp.Response whoami(String workerToken) {
        return http.get("/api/internal/worker/whoami", "X-Worker-Token", workerToken);
    }

    private TestHttp.Response mint(String identityToken, String conversationId) {
        return http.postJson(
                MINT, "{\"conversationId\":\"" + conversationId + "\"}", "Authorization", "Bearer " + identityToken);
    }
}
