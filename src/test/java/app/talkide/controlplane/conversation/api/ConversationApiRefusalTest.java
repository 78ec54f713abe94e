package app.talkide.controlplane.conversation.api;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * Who may not do what: another user's conversation, a conversation in a tenant-environment the caller
 * was removed from and one that does not exist all answer the same 404 on every endpoint; bad input is
 * a 400 problem naming the field.
 */
@DatabaseTest
@ConversationApiContext
class ConversationApiRefusalTest {

    static final String ALICE = TestHttp.basic("alice", "alice-pw");
    static final String BOB = TestHttp.basic("bob", "bob-pw");
    static final String CAROL = TestHttp.basic("carol", "carol-pw");

    @Autowired
    ApplicationContext context;

    @Autowired
    Memberships memberships;

    @Autowired
    MessageOutbox outbox;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId shared;
    TenantEnvironmentId carols;
    String alices;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        shared = Fixtures.tenantEnvironment(context);
        carols = Fixtures.tenantEnvironment(context);
        memberships.grant(shared, "alice");
        memberships.grant(shared, "bob");
        memberships.grant(carols, "carol");
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\"}".formatted(shared.tenant(), shared.env()),
                "Authorization",
                ALICE);
        assertThat(created.status()).isEqualTo(201);
        alices = created.json().get("id").asString();
    }

    @Test
    void aTenantEnvironmentBeingDeletedTakesNoNewConversation() {
        context.getBean(TenantEnvironments.class)
                .changeStatus(carols, TenantEnvironmentStatus.DELETING, "deletion requested");

        TestHttp.Response refused = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\"}".formatted(carols.tenant(), carols.env()),
                "Authorization",
                CAROL);

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().path("type").asString()).endsWith("/tenant-environment-being-deleted");
    }

    @Test
    void anotherMemberOfTheSameTenantEnvironmentGetsNotFoundEverywhere() {
        assertEveryEndpointIsNotFound(alices, BOB);
        assertThat(http.get("/api/conversations", "Authorization", BOB).json().get("conversations"))
                .isEmpty();
        assertThat(outbox.nextUndelivered(UUID.fromString(alices))).isEmpty();
    }

    @Test
    void aUserOfAnotherTenantGetsNotFoundEverywhere() {
        assertEveryEndpointIsNotFound(alices, CAROL);
    }

    @Test
    void aConversationNobodyHasIsTheSameNotFound() {
        assertEveryEndpointIsNotFound(UUID.randomUUID().toString(), ALICE);
    }

    @Test
    void anOwnerRemovedFromTheTenantEnvironmentLosesAccessUntilGrantedAgain() {
        memberships.revoke(shared, "alice");

        assertEveryEndpointIsNotFound(alices, ALICE);
        assertThat(http.get("/api/conversations", "Authorization", ALICE).body())
                .doesNotContain(alices);

        memberships.grant(shared, "alice");
        assertThat(http.get("/api/conversations/" + alices, "Authorization", ALICE)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void startingAConversationOutsideOnesTenantEnvironmentsIsRefusedLikeAnUnknownOne() {
        TestHttp.Response notMine = startIn(carols.tenant(), carols.env(), ALICE);
        TestHttp.Response nowhere = startIn("nosuch", "dev", ALICE);

        assertThat(notMine.status()).isEqualTo(400);
        assertThat(notMine.json().get("type").asString()).endsWith("/unknown-tenant-environment");
        assertThat(notMine.json().get("errors").toString()).contains("tenant");
        assertThat(nowhere.status()).isEqualTo(400);
        assertThat(nowhere.json().get("type").asString()).endsWith("/unknown-tenant-environment");
    }

    @Test
    void badInputIsABadRequestNamingTheField() {
        String messages = "/api/conversations/" + alices + "/messages";
        assertBadRequest(
                http.postJson(messages, "{\"text\":\"  \",\"clientMessageId\":\"c\"}", "Authorization", ALICE), "text");
        assertBadRequest(
                http.postJson(
                        messages,
                        "{\"text\":\"" + "x".repeat(SendMessage.MAX_TEXT + 1) + "\",\"clientMessageId\":\"c\"}",
                        "Authorization",
                        ALICE),
                "text");
        assertBadRequest(http.postJson(messages, "{\"text\":\"hi\"}", "Authorization", ALICE), "clientMessageId");
        assertBadRequest(
                http.postJson(
                        messages,
                        "{\"text\":\"hi\",\"clientMessageId\":\"" + "c".repeat(201) + "\"}",
                        "Authorization",
                        ALICE),
                "clientMessageId");
        assertBadRequest(http.postJson(messages, "not json", "Authorization", ALICE), "");
        assertBadRequest(http.get("/api/conversations/not-a-uuid", "Authorization", ALICE), "id");
        assertBadRequest(
                http.postJson(
                        "/api/conversations/not-a-uuid/messages",
                        "{\"text\":\"hi\",\"clientMessageId\":\"c\"}",
                        "Authorization",
                        ALICE),
                "id");
        assertBadRequest(http.get("/api/conversations/" + alices + "/events?limit=0", "Authorization", ALICE), "limit");
        assertBadRequest(
                http.get("/api/conversations/" + alices + "/events?limit=5000", "Authorization", ALICE), "limit");
        assertBadRequest(
                http.get("/api/conversations/" + alices + "/events?after=-1", "Authorization", ALICE), "after");
        assertBadRequest(http.get("/api/conversations?limit=201", "Authorization", ALICE), "limit");
        assertBadRequest(http.get("/api/conversations?tenant=" + shared.tenant(), "Authorization", ALICE), "env");
        assertBadRequest(http.get("/api/conversations?before=nope", "Authorization", ALICE), "before");
        assertBadRequest(http.get("/api/conversations?before=" + alices, "Authorization", BOB), "before");
        assertBadRequest(startIn("", "dev", ALICE), "tenant");
        assertBadRequest(startIn("Not_A_Label", "dev", ALICE), "tenant");
        assertBadRequest(
                http.postJson(
                        "/api/conversations",
                        "{\"tenant\":\"%s\",\"env\":\"%s\",\"title\":\"%s\"}"
                                .formatted(shared.tenant(), shared.env(), "t".repeat(201)),
                        "Authorization",
                        ALICE),
                "title");
    }

    private void assertEveryEndpointIsNotFound(String conversation, String caller) {
        String base = "/api/conversations/" + conversation;
        List<Function<TestHttp, TestHttp.Response>> calls = List.of(
                h -> h.get(base, "Authorization", caller),
                h -> h.get(base + "/events", "Authorization", caller),
                h -> h.get(base + "/reports", "Authorization", caller),
                h -> h.postJson(
                        base + "/messages", "{\"text\":\"hi\",\"clientMessageId\":\"x\"}", "Authorization", caller),
                h -> h.postJson(base + "/interrupt", "", "Authorization", caller));
        for (Function<TestHttp, TestHttp.Response> call : calls) {
            TestHttp.Response response = call.apply(http);
            assertThat(response.status()).isEqualTo(404);
            assertThat(response.header("Content-Type")).startsWith("application/problem+json");
            assertThat(response.json().get("type").asString()).endsWith("/conversation-not-found");
        }
    }

    private TestHttp.Response startIn(String tenant, String env, String caller) {
        return http.postJson(
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\"}".formatted(tenant, env),
                "Authorization",
                caller);
    }

    private static void assertBadRequest(TestHttp.Response response, String field) {
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
        assertThat(response.body()).as("names the field").contains(field);
    }
}
