package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.RawHttp;
import app.talkide.controlplane.support.TestHttp;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

// The same configuration as MembershipApiTest, so the two share one cached context.
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.auth.local-users[0].username=admin",
            "talkide.auth.local-users[0].password-hash={noop}admin-pw",
            "talkide.auth.local-users[0].roles=USER,ADMIN",
            "talkide.auth.local-users[1].username=alice",
            "talkide.auth.local-users[1].password-hash={noop}alice-pw",
            "talkide.auth.local-users[1].roles=USER"
        })
class PeopleSecurityTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    TestHttp http;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
    }

    @Test
    void adminApiNeedsTheAdminRole() {
        assertThat(http.get("/api/admin/tenant-environments").status()).isEqualTo(401);
        TestHttp.Response user =
                http.get("/api/admin/tenant-environments", "Authorization", TestHttp.basic("alice", "alice-pw"));
        assertThat(user.status()).isEqualTo(403);
        assertThat(user.header("Content-Type")).startsWith("application/problem+json");
        assertThat(http.get("/api/admin/tenant-environments", "Authorization", TestHttp.basic("admin", "admin-pw"))
                        .status())
                .isEqualTo(200);
    }

    @Test
    void wrongPasswordIsUnauthorizedWithoutABrowserPrompt() {
        TestHttp.Response response =
                http.get("/api/admin/tenant-environments", "Authorization", TestHttp.basic("admin", "nope"));
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.header("WWW-Authenticate")).isNull();
        assertThat(response.json().get("type").asString()).isEqualTo("https://talkide.app/problems/unauthenticated");
    }

    @Test
    void aRefusedRequestWhoseBodyCameLateLeavesTheConnectionUsable() {
        // Refused from the headers while the body is still on its way: were it left unread, Jetty would
        // close the connection after the answer and the caller's next request on it would fail.
        String body = "{\"workerImage\":\"registry.example/worker:1\"}";
        for (String[] caller : new String[][] {{"admin:nope", "401"}, {"alice:alice-pw", "403"}}) {
            String[] user = caller[0].split(":");
            String head = "PUT /api/admin/tenant-environments/acme/dev HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: " + TestHttp.basic(user[0], user[1]) + "\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n";
            try (RawHttp raw = new RawHttp(port, Duration.ofSeconds(10))) {
                String first =
                        raw.send(head).pause(Duration.ofMillis(300)).send(body).response();
                String second = raw.send(head + body).response();

                assertThat(RawHttp.status(first)).as(caller[0]).isEqualTo(Integer.parseInt(caller[1]));
                assertThat(second).as("the next request on the same connection").startsWith("HTTP/1.1 " + caller[1]);
            }
        }
    }

    @Test
    void invalidTenantEnvironmentNameIsABadRequestProblem() {
        TestHttp.Response response = http.put(
                "/api/admin/tenant-environments/Bad_Name/dev", "Authorization", TestHttp.basic("admin", "admin-pw"));
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.json().get("type").asString()).endsWith("/invalid-tenant-environment-name");
    }

    @Test
    void unknownTenantEnvironmentIsNotFound() {
        TestHttp.Response response = http.get(
                "/api/admin/tenant-environments/nobody/dev", "Authorization", TestHttp.basic("admin", "admin-pw"));
        assertThat(response.status()).isEqualTo(404);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void healthAndMetricsAreOpenButOtherActuatorEndpointsAreNot() {
        TestHttp management = new TestHttp(managementPort);
        assertThat(management.get("/actuator/health/liveness").status()).isEqualTo(200);
        assertThat(management.get("/actuator/health/readiness").status()).isEqualTo(200);
        assertThat(management.get("/actuator/prometheus").status()).isEqualTo(200);
        assertThat(management.get("/actuator/env").status()).isIn(401, 404);
    }

    @Test
    void adminCanIssueListRotateAndRevokeIdentityTokens() {
        String admin = TestHttp.basic("admin", "admin-pw");
        assertThat(http.put("/api/admin/tenant-environments/acme/dev", "Authorization", admin)
                        .status())
                .isEqualTo(200);
        TestHttp.Response issued =
                http.postJson("/api/admin/tenant-environments/acme/dev/identity-tokens", "", "Authorization", admin);
        assertThat(issued.status()).isEqualTo(201);
        assertThat(issued.json().get("token").asString()).startsWith("tkwi_");
        String id = issued.json().get("id").asString();

        TestHttp.Response list =
                http.get("/api/admin/tenant-environments/acme/dev/identity-tokens", "Authorization", admin);
        assertThat(list.body()).contains(id).doesNotContain("tkwi_").doesNotContain("hash");

        TestHttp.Response rotated = http.postJson(
                "/api/admin/tenant-environments/acme/dev/identity-tokens/rotate", "", "Authorization", admin);
        assertThat(rotated.status()).isEqualTo(200);
        assertThat(rotated.json().get("graceEndsAt").asString()).isNotBlank();

        assertThat(http.delete("/api/admin/tenant-environments/acme/dev/identity-tokens/" + id, "Authorization", admin)
                        .status())
                .isEqualTo(204);
        assertThat(http.delete(
                                "/api/admin/tenant-environments/acme/dev/identity-tokens/"
                                        + java.util.UUID.randomUUID(),
                                "Authorization",
                                admin)
                        .status())
                .isEqualTo(404);
        assertThat(http.delete(
                                "/api/admin/tenant-environments/acme/dev/identity-tokens/not-a-uuid",
                                "Authorization",
                                admin)
                        .status())
                .isEqualTo(400);
        assertThat(http.postJson(
                                "/api/admin/tenant-environments/nobody/dev/identity-tokens", "", "Authorization", admin)
                        .status())
                .isEqualTo(404);
    }
}
