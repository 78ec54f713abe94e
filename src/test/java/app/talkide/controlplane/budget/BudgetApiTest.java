package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.desired.AdminApiContext;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestHttp;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The admin API (role ADMIN) and {@code GET /api/me/usage}, over HTTP with the people security chain. */
@DatabaseTest
@AdminApiContext
class BudgetApiTest {

    static final String ADMIN = TestHttp.basic("root", "root-pw");
    static final String ALICE = TestHttp.basic("alice", "alice-pw");

    @LocalServerPort
    int port;

    @Autowired
    UserBudgetService budgets;

    TestHttp http;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
    }

    @Test
    void anAdminSetsALimitAndTheUserSeesItWithTheirSpend() {
        TestHttp.Response set = put("/api/admin/budgets/alice", "{\"limitMicros\":7000000,\"enforcement\":\"SOFT\"}");
        assertThat(set.status()).isEqualTo(200);
        assertThat(set.json().path("limitMicros").asLong()).isEqualTo(7_000_000);
        assertThat(set.json().path("enforcement").asString()).isEqualTo("SOFT");

        budgets.record(record("alice", "acme", 250_000));
        var reservation = ((BudgetDecision.Reserved) budgets.preCallCheck("alice", 1_000_000)).reservation();
        budgets.postCallDebit(reservation, record("alice", "acme", 500_000));

        TestHttp.Response mine = http.get("/api/me/usage", "Authorization", ALICE);
        assertThat(mine.status()).isEqualTo(200);
        assertThat(mine.json().path("userId").asString()).isEqualTo("alice");
        assertThat(mine.json().path("spentMicros").asLong()).isEqualTo(500_000);
        assertThat(mine.json().path("reservedMicros").asLong()).isZero();
        assertThat(mine.json().path("limitMicros").asLong()).isEqualTo(7_000_000);
        assertThat(mine.json().path("remainingMicros").asLong()).isEqualTo(6_500_000);
        assertThat(Instant.parse(mine.json().path("periodEnd").asString())).isAfter(Instant.now());

        TestHttp.Response admin = http.get("/api/admin/budgets/alice", "Authorization", ADMIN);
        assertThat(admin.json().path("spentMicros").asLong()).isEqualTo(500_000);
    }

    @Test
    void nullFieldsReturnToTheDefaults() {
        put("/api/admin/budgets/bob", "{\"limitMicros\":1,\"maxConcurrent\":1}");
        TestHttp.Response reset = put("/api/admin/budgets/bob", "{}");
        assertThat(reset.json().path("limitMicros").asLong()).isEqualTo(25_000_000);
        assertThat(reset.json().path("settings").path("maxConcurrent").isNull()).isTrue();
    }

    @Test
    void usageIsReportedByUserTenantAndModel() {
        String tenant = "t" + UUID.randomUUID().toString().substring(0, 8);
        budgets.record(record("carol", tenant, 100));
        budgets.record(record("dave", tenant, 300));

        TestHttp.Response byTenant = http.get("/api/admin/usage?groupBy=tenant", "Authorization", ADMIN);
        assertThat(byTenant.status()).isEqualTo(200);
        assertThat(byTenant.json()
                        .path("groups")
                        .valueStream()
                        .filter(group -> group.path("key").asString().equals(tenant + "/dev"))
                        .findFirst()
                        .orElseThrow()
                        .path("costMicros")
                        .asLong())
                .isEqualTo(400);

        TestHttp.Response carol = http.get("/api/admin/usage?groupBy=model&userId=carol", "Authorization", ADMIN);
        assertThat(carol.json().path("groups").get(0).path("key").asString()).isEqualTo("claude-opus-4-5");
        assertThat(carol.json().path("groups").get(0).path("calls").asLong()).isEqualTo(1);
    }

    @Test
    void badQueriesAreProblemDetails() {
        TestHttp.Response grouping = http.get("/api/admin/usage?groupBy=password", "Authorization", ADMIN);
        assertThat(grouping.status()).isEqualTo(400);
        assertThat(grouping.header("content-type")).startsWith("application/problem+json");
        assertThat(put("/api/admin/budgets/alice", "{\"limitMicros\":-5}").status())
                .isEqualTo(400);
        assertThat(put("/api/admin/budgets/alice", "{\"enforcement\":\"MAYBE\"}")
                        .status())
                .isEqualTo(400);
        assertThat(http.get(
                                "/api/admin/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
                                "Authorization",
                                ADMIN)
                        .status())
                .isEqualTo(400);
    }

    @Test
    void onlyAdminsReachTheAdminApiAndOnlySignedInUsersTheirUsage() {
        assertThat(http.get("/api/admin/budgets/alice", "Authorization", ALICE).status())
                .isEqualTo(403);
        assertThat(http.send(http.request("/api/admin/budgets/alice")
                                .header("Authorization", ALICE)
                                .header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString("{\"limitMicros\":999999999}"))
                                .build())
                        .status())
                .isEqualTo(403);
        assertThat(http.get("/api/admin/usage", "Authorization", ALICE).status())
                .isEqualTo(403);
        assertThat(http.get("/api/me/usage").status()).isEqualTo(401);
    }

    private TestHttp.Response put(String path, String json) {
        return http.send(http.request(path)
                .header("Authorization", ADMIN)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    private static UsageRecord record(String user, String tenant, long cost) {
        return CompletedCalls.of(user, tenant, cost, CompletedCalls.TOKENS, Instant.now());
    }
}
