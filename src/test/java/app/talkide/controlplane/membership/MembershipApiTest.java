package app.talkide.controlplane.membership;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import tools.jackson.databind.JsonNode;

/** The members admin API (role ADMIN) and a user's own tenant-environments, over real HTTP. */
@DatabaseTest
// The same configuration as PeopleSecurityTest, so the two share one cached context.
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
class MembershipApiTest {

    static final String ADMIN = TestHttp.basic("admin", "admin-pw");
    static final String ALICE = TestHttp.basic("alice", "alice-pw");

    @Autowired
    ApplicationContext context;

    @Autowired
    Memberships memberships;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId tenantEnvironment;
    String members;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        members = "/api/admin/tenant-environments/" + tenantEnvironment.path() + "/members";
    }

    @Test
    void adminGrantsListsAndRevokesMemberships() {
        TestHttp.Response granted = http.put(members + "/alice", "Authorization", ADMIN);
        assertThat(granted.status()).isEqualTo(200);
        assertThat(granted.json().get("userId").asString()).isEqualTo("alice");
        String grantedAt = granted.json().get("grantedAt").asString();
        TestHttp.Response again = http.put(members + "/alice", "Authorization", ADMIN);
        assertThat(again.json().get("grantedAt").asString()).as("idempotent").isEqualTo(grantedAt);
        assertThat(memberships.isMember(tenantEnvironment, "alice")).isTrue();

        JsonNode listed = http.get(members, "Authorization", ADMIN).json();
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("tenant").asString()).isEqualTo(tenantEnvironment.tenant());
        assertThat(listed.get(0).get("env").asString()).isEqualTo(tenantEnvironment.env());

        assertThat(http.delete(members + "/alice", "Authorization", ADMIN).status())
                .isEqualTo(204);
        assertThat(memberships.isMember(tenantEnvironment, "alice")).isFalse();
        assertThat(http.delete(members + "/alice", "Authorization", ADMIN).status())
                .isEqualTo(404);
        assertThat(http.get(members, "Authorization", ADMIN).json()).isEmpty();
    }

    @Test
    void userIdsFromAnIdentityProviderAreKeptAsGiven() {
        String userId = "auth0|5f7c8ec7c33c6c004bbafe82";
        assertThat(http.put(members + "/auth0%7C5f7c8ec7c33c6c004bbafe82", "Authorization", ADMIN)
                        .status())
                .isEqualTo(200);
        assertThat(memberships.tenantEnvironmentsOf(userId)).containsExactly(tenantEnvironment);
    }

    @Test
    void unknownTenantEnvironmentAndInvalidNamesAreRefused() {
        TestHttp.Response unknown =
                http.put("/api/admin/tenant-environments/nosuch/dev/members/alice", "Authorization", ADMIN);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().get("type").asString()).endsWith("/tenant-environment-not-found");
        assertThat(http.get("/api/admin/tenant-environments/nosuch/dev/members", "Authorization", ADMIN)
                        .status())
                .isEqualTo(404);
        assertThat(http.put("/api/admin/tenant-environments/Bad_Name/dev/members/alice", "Authorization", ADMIN)
                        .status())
                .isEqualTo(400);
        TestHttp.Response tooLong = http.put(members + "/" + "u".repeat(256), "Authorization", ADMIN);
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.json().get("type").asString()).endsWith("/invalid-user-id");
    }

    @Test
    void membersApiNeedsTheAdminRole() {
        assertThat(http.get(members).status()).isEqualTo(401);
        assertThat(http.get(members, "Authorization", ALICE).status()).isEqualTo(403);
        TestHttp.Response selfGrant = http.put(members + "/alice", "Authorization", ALICE);
        assertThat(selfGrant.status()).isEqualTo(403);
        assertThat(selfGrant.header("Content-Type")).startsWith("application/problem+json");
        assertThat(http.delete(members + "/alice", "Authorization", ALICE).status())
                .isEqualTo(403);
        assertThat(memberships.isMember(tenantEnvironment, "alice")).isFalse();
    }

    @Test
    void aUserSeesTheirOwnTenantEnvironmentsWithTheirWorkersReadiness() {
        TenantEnvironmentId notMine = Fixtures.tenantEnvironment(context);
        memberships.grant(tenantEnvironment, "alice");
        memberships.grant(notMine, "admin");

        TestHttp.Response mine = http.get("/api/me/tenant-environments", "Authorization", ALICE);

        assertThat(mine.status()).isEqualTo(200);
        JsonNode list = mine.json();
        assertThat(list).hasSize(1);
        assertThat(list.get(0).get("tenant").asString()).isEqualTo(tenantEnvironment.tenant());
        assertThat(list.get(0).get("env").asString()).isEqualTo(tenantEnvironment.env());
        assertThat(list.get(0).get("status").asString()).isEqualTo("PROVISIONING");
        // Local mode's runtime starts the embedded worker on first use.
        assertThat(list.get(0).get("worker").asString()).isEqualTo("READY");
        assertThat(http.get("/api/me/tenant-environments").status()).isEqualTo(401);
    }
}
