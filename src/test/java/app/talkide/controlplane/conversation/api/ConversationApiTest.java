package app.talkide.controlplane.conversation.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * The browser API over real HTTP, end to end: a conversation started, a message accepted and answered by
 * the embedded worker through the gateway and the simulator, the events read back, an interrupt.
 */
@DatabaseTest
@ConversationApiContext
class ConversationApiTest {

    static final String ALICE = TestHttp.basic("alice", "alice-pw");
    static final String LISTER = TestHttp.basic("lister", "lister-pw");

    @Autowired
    ApplicationContext context;

    @Autowired
    MessageOutbox outbox;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId tenantEnvironment;

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        context.getBean(Memberships.class).grant(tenantEnvironment, "alice");
    }

    @Test
    void conversationIsStartedTalkedToAndReadBack() {
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\",\"title\":\"Fix the build\"}"
                        .formatted(tenantEnvironment.tenant(), tenantEnvironment.env()),
                "Authorization",
                ALICE);
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().get("id").asString();
        assertThat(created.header("Location")).isEqualTo("/api/conversations/" + id);
        assertThat(created.json().get("tenant").asString()).isEqualTo(tenantEnvironment.tenant());
        assertThat(created.json().get("title").asString()).isEqualTo("Fix the build");

        TestHttp.Response read = http.get("/api/conversations/" + id, "Authorization", ALICE);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().get("createdAt").asString()).isNotBlank();
        assertThat(ids(http.get(
                                "/api/conversations?tenant=%s&env=%s"
                                        .formatted(tenantEnvironment.tenant(), tenantEnvironment.env()),
                                "Authorization",
                                ALICE)
                        .json()))
                .containsExactly(id);

        TestHttp.Response sent = http.postJson(
                "/api/conversations/" + id + "/messages",
                "{\"text\":\"Why does the build fail?\",\"clientMessageId\":\"c-1\"}",
                "Authorization",
                ALICE);
        assertThat(sent.status()).isEqualTo(202);
        String messageId = sent.json().get("messageId").asString();
        assertThat(sent.json().get("duplicate").asBoolean()).isFalse();

        // Delivered through the outbox to the embedded worker, answered through the gateway.
        await().atMost(Duration.ofSeconds(30)).until(() -> types(events(id, 0)).contains("turn.completed"));
        List<JsonNode> events = events(id, 0);
        assertThat(types(events))
                .containsSubsequence("message.accepted", "turn.started", "text.delta", "turn.completed");
        JsonNode accepted = events.getFirst();
        assertThat(accepted.get("type").asString()).isEqualTo("message.accepted");
        assertThat(accepted.get("seq").asLong()).isEqualTo(1);
        assertThat(accepted.get("data").get("messageId").asString()).isEqualTo(messageId);
        assertThat(accepted.get("data").get("clientMessageId").asString()).isEqualTo("c-1");
        assertThat(accepted.get("data").get("text").asString()).isEqualTo("Why does the build fail?");
        assertThat(outbox.nextUndelivered(UUID.fromString(id))).isEmpty();

        List<JsonNode> rest = events(id, 1);
        assertThat(rest).hasSize(events.size() - 1);
        assertThat(rest.getFirst().get("seq").asLong()).isEqualTo(2);

        assertThat(http.postJson("/api/conversations/" + id + "/interrupt", "", "Authorization", ALICE)
                        .status())
                .isEqualTo(202);
    }

    @Test
    void theSameClientMessageIdSentAgainIsTheSameMessage() {
        String id = start();
        String body = "{\"text\":\"once\",\"clientMessageId\":\"retry-me\"}";

        TestHttp.Response first = http.postJson("/api/conversations/" + id + "/messages", body, "Authorization", ALICE);
        TestHttp.Response again = http.postJson("/api/conversations/" + id + "/messages", body, "Authorization", ALICE);

        assertThat(again.status()).isEqualTo(202);
        assertThat(again.json().get("messageId").asString())
                .isEqualTo(first.json().get("messageId").asString());
        assertThat(again.json().get("duplicate").asBoolean()).isTrue();
        assertThat(types(events(id, 0)).stream().filter("message.accepted"::equals))
                .hasSize(1);

        TestHttp.Response changed = http.postJson(
                "/api/conversations/" + id + "/messages",
                "{\"text\":\"something else\",\"clientMessageId\":\"retry-me\"}",
                "Authorization",
                ALICE);
        assertThat(changed.status()).isEqualTo(409);
        assertThat(changed.json().get("type").asString()).endsWith("/client-message-id-reused");
    }

    @Test
    void concurrentDuplicatePostsStoreAndAnnounceOneMessage() throws Exception {
        String id = start();
        int posts = 12;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<TestHttp.Response>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(posts)) {
            for (int i = 0; i < posts; i++) {
                answers.add(pool.submit(() -> {
                    if (!go.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("timed out waiting for go");
                    }
                    return http.postJson(
                            "/api/conversations/" + id + "/messages",
                            "{\"text\":\"double click\",\"clientMessageId\":\"same\"}",
                            "Authorization",
                            ALICE);
                }));
            }
            go.countDown();
            Set<String> messageIds = new HashSet<>();
            int created = 0;
            for (Future<TestHttp.Response> answer : answers) {
                TestHttp.Response response = answer.get(30, TimeUnit.SECONDS);
                assertThat(response.status()).isEqualTo(202);
                messageIds.add(response.json().get("messageId").asString());
                created += response.json().get("duplicate").asBoolean() ? 0 : 1;
            }
            assertThat(messageIds).hasSize(1);
            assertThat(created).isEqualTo(1);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> types(events(id, 0)).contains("turn.completed"));
        assertThat(types(events(id, 0)).stream().filter("message.accepted"::equals))
                .hasSize(1);
        assertThat(types(events(id, 0)).stream().filter("turn.started"::equals)).hasSize(1);
    }

    @Test
    void eventsArePagedByAfterAndLimit() {
        String id = start();
        for (int i = 0; i < 3; i++) {
            send(id, "p-" + i, "message " + i);
        }

        TestHttp.Response first = http.get("/api/conversations/" + id + "/events?limit=2", "Authorization", ALICE);

        assertThat(first.json().get("events")).hasSize(2);
        assertThat(first.json().get("hasMore").asBoolean()).isTrue();
        long last = first.json().get("events").get(1).get("seq").asLong();
        TestHttp.Response next =
                http.get("/api/conversations/" + id + "/events?after=" + last + "&limit=2", "Authorization", ALICE);
        assertThat(next.json().get("events").get(0).get("seq").asLong()).isEqualTo(last + 1);
    }

    @Test
    void conversationsAreListedNewestFirstInBoundedPages() {
        context.getBean(Memberships.class).grant(tenantEnvironment, "lister");
        List<String> started = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            started.add(start(tenantEnvironment, LISTER));
        }
        TenantEnvironmentId elsewhere = Fixtures.tenantEnvironment(context);
        context.getBean(Memberships.class).grant(elsewhere, "lister");
        String other = start(elsewhere, LISTER);

        JsonNode firstPage =
                http.get("/api/conversations?limit=4", "Authorization", LISTER).json();
        assertThat(ids(firstPage)).containsExactly(other, started.get(4), started.get(3), started.get(2));
        JsonNode secondPage = http.get(
                        "/api/conversations?limit=4&before="
                                + firstPage.get("next").asString(),
                        "Authorization",
                        LISTER)
                .json();
        assertThat(ids(secondPage)).containsExactly(started.get(1), started.get(0));
        assertThat(secondPage.get("next").isNull()).isTrue();

        JsonNode filtered = http.get(
                        "/api/conversations?tenant=%s&env=%s".formatted(elsewhere.tenant(), elsewhere.env()),
                        "Authorization",
                        LISTER)
                .json();
        assertThat(ids(filtered)).containsExactly(other);
    }

    @Test
    void untitledConversationGetsADefaultTitle() {
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\"}".formatted(tenantEnvironment.tenant(), tenantEnvironment.env()),
                "Authorization",
                ALICE);
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.json().get("title").asString()).isEqualTo("New conversation");
    }

    @Test
    void withoutCredentialsEveryEndpointIsUnauthorized() {
        String id = start();
        assertThat(http.get("/api/conversations").status()).isEqualTo(401);
        assertThat(http.get("/api/conversations/" + id).status()).isEqualTo(401);
        assertThat(http.get("/api/conversations/" + id + "/events").status()).isEqualTo(401);
        // A write without credentials meets local mode's CSRF check first (403), or else 401.
        assertThat(http.postJson(
                                "/api/conversations/" + id + "/messages", "{\"text\":\"hi\",\"clientMessageId\":\"c\"}")
                        .status())
                .isIn(401, 403);
        assertThat(outbox.nextUndelivered(UUID.fromString(id))).isEmpty();
    }

    String start() {
        return start(tenantEnvironment, ALICE);
    }

    String start(TenantEnvironmentId in, String caller) {
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\",\"title\":\"t\"}".formatted(in.tenant(), in.env()),
                "Authorization",
                caller);
        assertThat(created.status()).isEqualTo(201);
        return created.json().get("id").asString();
    }

    void send(String id, String clientMessageId, String text) {
        assertThat(http.postJson(
                                "/api/conversations/" + id + "/messages",
                                "{\"text\":\"%s\",\"clientMessageId\":\"%s\"}".formatted(text, clientMessageId),
                                "Authorization",
                                ALICE)
                        .status())
                .isEqualTo(202);
    }

    List<JsonNode> events(String id, long after) {
        TestHttp.Response response =
                http.get("/api/conversations/" + id + "/events?after=" + after, "Authorization", ALICE);
        assertThat(response.status()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        response.json().get("events").forEach(events::add);
        return events;
    }

    static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.get("type").asString()).toList();
    }

    static List<String> ids(JsonNode page) {
        List<String> ids = new ArrayList<>();
        page.get("conversations").forEach(c -> ids.add(c.get("id").asString()));
        return ids;
    }
}
