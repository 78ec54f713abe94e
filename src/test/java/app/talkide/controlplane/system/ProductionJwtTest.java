package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.TokenTestSupport;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The production profile's browser authentication against a real identity provider's endpoints: OIDC
 * discovery and a JWKS served over HTTP, RS256 tokens from a generated key. The user id everywhere is the
 * token's {@code sub}; anything not signed by the provider, expired, from another issuer or naming nobody
 * is a 401 problem. ({@code PeopleSecurityTest} covers local mode's form login and roles.)
 */
@DatabaseTest
class ProductionJwtTest {

    static final String AUDIENCE = "talkide-console";
    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");

    static RSAKey providerKey;
    static HttpServer provider;
    static String issuer;
    static ConfigurableApplicationContext app;
    static TestHttp http;

    @TempDir
    static Path dataDir;

    @BeforeAll
    static void start() throws Exception {
        providerKey = new RSAKeyGenerator(2048).keyID("provider-1").generate();
        provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        issuer = "http://127.0.0.1:" + provider.getAddress().getPort() + "/realms/talkide";
        provider.createContext(
                "/realms/talkide/.well-known/openid-configuration",
                exchange -> json(exchange, "{\"issuer\":\"" + issuer + "\",\"jwks_uri\":\"" + issuer + "/jwks\"}"));
        provider.createContext(
                "/realms/talkide/jwks", exchange -> json(exchange, new JWKSet(providerKey.toPublicJWK()).toString()));
        provider.start();

        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--talkide.data-dir=" + dataDir,
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                "--talkide.gateway.api-key=sk-ant-test-key",
                "--spring.security.oauth2.resourceserver.jwt.issuer-uri=" + issuer,
                "--spring.security.oauth2.resourceserver.jwt.audiences=" + AUDIENCE,
                // Authentication is under test here, not the cut-over gate (CutoverGateTest).
                "--talkide.gate.required=false"));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        app = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .profiles("production")
                .run(args.toArray(String[]::new));
        http = new TestHttp(((WebServerApplicationContext) app).getWebServer().getPort());
        app.getBean(TenantEnvironments.class).register(ACME);
        app.getBean(Memberships.class).grant(ACME, "user-alice");
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (provider != null) {
            provider.stop(0);
        }
    }

    @Test
    void aTokenFromTheProviderIsAcceptedAndItsSubjectIsTheUser() throws Exception {
        String alice = bearer(token("user-alice", List.of("USER"), providerKey, issuer, 300));

        TestHttp.Response created =
                http.postJson("/api/conversations", "{\"tenant\":\"acme\",\"env\":\"dev\"}", "Authorization", alice);

        assertThat(created.status()).isEqualTo(201);
        String id = created.json().get("id").asString();
        assertThat(http.get("/api/conversations/" + id, "Authorization", alice).status())
                .isEqualTo(200);
        assertThat(http.get("/api/conversations", "Authorization", alice).body())
                .contains(id);
        // Another subject is another user, even with the same roles.
        String mallory = bearer(token("user-mallory", List.of("USER"), providerKey, issuer, 300));
        assertThat(http.get("/api/conversations/" + id, "Authorization", mallory)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void productionKeepsNoSessionAndItsSessionCookieWouldTravelOnlyOverHttps() throws Exception {
        String alice = bearer(token("user-alice", List.of("USER"), providerKey, issuer, 300));

        TestHttp.Response listed = http.get("/api/conversations", "Authorization", alice);

        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.raw().headers().allValues("Set-Cookie")).isEmpty();
        // Should a session ever be created, its cookie as the servlet container would set it.
        jakarta.servlet.SessionCookieConfig cookie = ((org.springframework.web.context.WebApplicationContext) app)
                .getServletContext()
                .getSessionCookieConfig();
        assertThat(cookie.isSecure()).isTrue();
        assertThat(cookie.isHttpOnly()).isTrue();
        assertThat(cookie.getAttribute("SameSite")).isEqualToIgnoringCase("lax");
    }

    @Test
    void rolesComeFromTheRolesClaim() throws Exception {
        String admin = bearer(token("user-ops", List.of("USER", "ADMIN"), providerKey, issuer, 300));
        String user = bearer(token("user-alice", List.of("USER"), providerKey, issuer, 300));

        assertThat(http.get("/api/admin/tenant-environments/acme/dev/members", "Authorization", admin)
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/api/admin/tenant-environments/acme/dev/members", "Authorization", user)
                        .status())
                .isEqualTo(403);
    }

    @Test
    void tokensTheProviderDidNotIssueAreUnauthorized() throws Exception {
        RSAKey stranger = new RSAKeyGenerator(2048).keyID("provider-1").generate();
        List<String> refused = List.of(
                token("user-alice", List.of("USER"), stranger, issuer, 300),
                token("user-alice", List.of("USER"), providerKey, "http://127.0.0.1:1/other", 300),
                token("user-alice", List.of("USER"), providerKey, issuer, -120),
                token(null, List.of("USER"), providerKey, issuer, 300),
                "not-a-jwt");
        for (String token : refused) {
            TestHttp.Response response = http.get("/api/conversations", "Authorization", bearer(token));
            assertThat(response.status()).as(token).isEqualTo(401);
            assertThat(response.header("Content-Type")).startsWith("application/problem+json");
        }
        assertThat(http.get("/api/conversations").status()).isEqualTo(401);
        // Production has no form login or HTTP Basic.
        assertThat(http.get("/api/conversations", "Authorization", TestHttp.basic("dev", "dev"))
                        .status())
                .isEqualTo(401);
    }

    private static String token(String subject, List<String> roles, RSAKey key, String issuedBy, long validSeconds)
            throws JOSEException {
        return token(subject, roles, key, issuedBy, validSeconds, AUDIENCE);
    }

    private static String token(
            String subject, List<String> roles, RSAKey key, String issuedBy, long validSeconds, String audience)
            throws JOSEException {
        Instant now = Instant.now();
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(issuedBy)
                .audience(audience)
                .issueTime(Date.from(now.minusSeconds(Math.max(0, -validSeconds) + 10)))
                .expirationTime(Date.from(now.plusSeconds(validSeconds)))
                .claim("roles", roles);
        if (subject != null) {
            claims.subject(subject);
        }
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims.build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Test
    void aTokenTheProviderIssuedForAnotherClientCannotActHereEvenAsAdmin() throws Exception {
        String otherClient =
                bearer(token("user-ops", List.of("USER", "ADMIN"), providerKey, issuer, 300, "some-other-app"));

        TestHttp.Response response =
                http.get("/api/admin/tenant-environments/acme/dev/members", "Authorization", otherClient);

        assertThat(response.status()).isEqualTo(401);
        assertThat(http.get("/api/conversations", "Authorization", otherClient).status())
                .isEqualTo(401);
    }

    private static String bearer(String token) {
        return "Bearer " + token;
    }

    private static void json(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
