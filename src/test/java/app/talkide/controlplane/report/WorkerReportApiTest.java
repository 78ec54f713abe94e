package app.talkide.controlplane.report;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/** Worker reports over real HTTP: scoped to the WorkerToken's conversation, idempotent, owner-readable. */
@DatabaseTest
// A context of its own (own properties): close it afterwards so its connection pool does not linger.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            // Lists bind whole: the development user again, and a second person (same password) without ADMIN.
            "talkide.auth.local-users[0].username=dev",
            "talkide.auth.local-users[0].password-hash={bcrypt}$2a$10$oUhz/nluHIomJUXpAy2AR.ZAWZDb/NmZEcBSiJf.cJEVUUWc6Y84K",
            "talkide.auth.local-users[0].roles=USER,ADMIN",
            "talkide.auth.local-users[1].username=eve",
            "talkide.auth.local-users[1].password-hash={bcrypt}$2a$10$oUhz/nluHIomJUXpAy2AR.ZAWZDb/NmZEcBSiJf.cJEVUUWc6Y84K",
            "talkide.auth.local-users[1].roles=USER"
        })
class WorkerReportApiTest {

    private static final String DEV = TestHttp.basic("dev", "dev");
    private static final String EVE = TestHttp.basic("eve", "dev");

    @Autowired
    ApplicationContext context;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId tenantEnvironment;
    Conversation conversation;
    String workerToken;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        context.getBean(Memberships.class).grant(tenantEnvironment, "dev");
        conversation = Fixtures.conversation(context, tenantEnvironment, "dev");
        workerToken = mint(conversation);
    }

    @Test
    void reportIsStoredOnceAndReadableByTheOwner() {
        String body = issue("issue-1", conversation.id(), "Build fails on main");

        TestHttp.Response first = post("/issues", body, workerToken);
        TestHttp.Response repeat = post("/issues", body, workerToken);

        assertThat(first.status()).isEqualTo(201);
        assertThat(repeat.status()).isEqualTo(200);
        assertThat(repeat.json().get("seq").asLong())
                .isEqualTo(first.json().get("seq").asLong());
        JsonNode listed = http.get(
                        "/api/conversations/" + conversation.id() + "/reports?kind=issues", "Authorization", DEV)
                .json();
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("report").get("title").asString()).isEqualTo("Build fails on main");
        assertThat(listed.get(0).get("userId").asString()).isEqualTo("dev");
        assertThat(listed.get(0).get("tenant").asString()).isEqualTo(tenantEnvironment.tenant());
    }

    @Test
    void sameIdWithAnotherBodyIsRefused() {
        post("/issues", issue("issue-2", conversation.id(), "first"), workerToken);

        TestHttp.Response changed = post("/issues", issue("issue-2", conversation.id(), "second"), workerToken);

        assertThat(changed.status()).isEqualTo(409);
        assertThat(changed.json().get("type").asString()).endsWith("/report-id-reused");
    }

    @Test
    void reportForAnotherConversationThanTheTokenIsForbidden() {
        Conversation other = Fixtures.conversation(context, tenantEnvironment, "dev");

        TestHttp.Response answer = post("/activity", activity("a-1", other.id()), workerToken);

        assertThat(answer.status()).isEqualTo(403);
        assertThat(http.get("/api/conversations/" + other.id() + "/reports", "Authorization", DEV)
                        .json())
                .isEmpty();
    }

    @Test
    void ownerRemovedFromTheTenantEnvironmentNoLongerReadsItsReports() {
        post("/issues", issue("issue-3", conversation.id(), "stays stored"), workerToken);
        String reports = "/api/conversations/" + conversation.id() + "/reports";
        assertThat(http.get(reports, "Authorization", DEV).status()).isEqualTo(200);

        context.getBean(Memberships.class).revoke(tenantEnvironment, "dev");

        TestHttp.Response refused = http.get(reports, "Authorization", DEV);
        assertThat(refused.status()).isEqualTo(404);
        assertThat(refused.json().get("type").asString()).endsWith("/conversation-not-found");
    }

    @Test
    void reportWithoutWorkerTokenIsUnauthorized() {
        assertThat(post("/usage", usage("u-1", conversation.id()), "garbage").status())
                .isEqualTo(401);
    }

    @Test
    void invalidReportIsABadRequestNamingTheField() {
        TestHttp.Response answer = post(
                "/tool-events",
                "{\"id\":\"t-1\",\"conversationId\":\"" + conversation.id()
                        + "\",\"toolUseId\":\"tu\",\"tool\":\"bash\",\"phase\":\"exploded\"}",
                workerToken);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body()).contains("phase");
    }

    @Test
    void anotherUserCannotReadReportsOfMyConversation() {
        post("/usage", usage("u-2", conversation.id()), workerToken);

        TestHttp.Response eve = http.get("/api/conversations/" + conversation.id() + "/reports", "Authorization", EVE);

        assertThat(eve.status()).isEqualTo(404);
        assertThat(eve.body()).doesNotContain("claude");
    }

    @Test
    void workerOfAnotherTenantCannotReportIntoMyConversation() {
        TenantEnvironmentId otherTenant = Fixtures.tenantEnvironment(context);
        Conversation theirs = Fixtures.conversation(context, otherTenant, "dev");
        String theirToken = mint(theirs);

        assertThat(post("/usage", usage("u-3", conversation.id()), theirToken).status())
                .isEqualTo(403);
    }

    @Test
    void adminSearchesByTenantAndKindButPeopleWithoutTheRoleCannot() {
        post("/usage", usage("u-4", conversation.id()), workerToken);
        post("/activity", activity("a-4", conversation.id()), workerToken);

        JsonNode usage = http.get(
                        "/api/admin/reports?tenant=" + tenantEnvironment.tenant() + "&kind=usage", "Authorization", DEV)
                .json();

        assertThat(usage).hasSize(1);
        assertThat(usage.get(0).get("report").get("inputTokens").asLong()).isEqualTo(120);
        assertThat(http.get("/api/admin/reports", "Authorization", EVE).status())
                .isEqualTo(403);
        assertThat(http.get("/api/admin/reports?kind=bogus", "Authorization", DEV)
                        .status())
                .isEqualTo(400);
    }

    @Test
    void concurrentRepeatsOfOneReportStoreItOnce() throws Exception {
        String body = usage("u-race", conversation.id());
        ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
        try (ExecutorService callers = Executors.newFixedThreadPool(8)) {
            IntStream.range(0, 16)
                    .forEach(i -> callers.submit(() -> statuses.add(
                            post("/usage", body, mint(conversation)).status())));
        }

        assertThat(statuses).hasSize(16).containsOnly(200, 201).containsOnlyOnce(201);
        assertThat(http.get("/api/conversations/" + conversation.id() + "/reports", "Authorization", DEV)
                        .json())
                .hasSize(1);
    }

    private TestHttp.Response post(String path, String body, String token) {
        return http.postJson("/api/internal/worker" + path, body, "X-Worker-Token", token);
    }

    private String mint(Conversation of) {
        String identity =
                Fixtures.identityToken(context, of.tenantEnvironment()).token();
        return http.postJson(
                        "/api/v1/worker-gateway/token/mint",
                        "{\"conversationId\":\"" + of.id() + "\"}",
                        "Authorization",
                        "Bearer " + identity)
                .json()
                .get("token")
                .asString();
    }

    private static String issue(String id, UUID conversationId, String title) {
        return "{\"id\":\"" + id + "\",\"conversationId\":\"" + conversationId + "\",\"title\":\"" + title
                + "\",\"body\":\"steps\",\"severity\":\"high\",\"labels\":[\"build\"]}";
    }

    private static String activity(String id, UUID conversationId) {
        return "{\"id\":\"" + id + "\",\"conversationId\":\"" + conversationId
                + "\",\"activity\":\"build\",\"message\":\"gradle test passed\"}";
    }

    private static String usage(String id, UUID conversationId) {
        return "{\"id\":\"" + id + "\",\"conversationId\":\"" + conversationId
                + "\",\"model\":\"claude-sonnet-4-5\",\"inputTokens\":120,\"outputTokens\":40,"
                + "\"cacheCreationInputTokens\":0,\"cacheReadInputTokens\":0,"
                + "\"occurredAt\":\"2026-01-01T00:00:00Z\"}";
    }
}
