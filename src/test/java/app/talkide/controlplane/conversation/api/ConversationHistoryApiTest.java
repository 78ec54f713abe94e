package app.talkide.controlplane.conversation.api;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.conversation.compaction.LogCompactor;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import tools.jackson.databind.JsonNode;

/** {@code GET /api/conversations/{id}/history}: whole turns, newest page first, and where to go live. */
@DatabaseTest
@ConversationApiContext
class ConversationHistoryApiTest {

    static final String ALICE = TestHttp.basic("alice", "alice-pw");
    static final String BOB = TestHttp.basic("bob", "bob-pw");

    @Autowired
    ApplicationContext context;

    @Autowired
    ConversationEventLog log;

    @LocalServerPort
    int port;

    TestHttp http;
    UUID id;
    List<ConversationEvent> appended = new ArrayList<>();

    @BeforeEach
    void setUp() {
        http = new TestHttp(port);
        var tenantEnvironment = Fixtures.tenantEnvironment(context);
        Fixtures.conversation(context, tenantEnvironment, "bob");
        id = Fixtures.conversation(context, tenantEnvironment, "alice").id();
        // Three turns; the third's message is accepted while the second runs, then a worker status.
        append("message.accepted", "{\"messageId\":\"m0\",\"text\":\"q0\"}"); // 1
        turn(0, false); // 2..5
        append("message.accepted", "{\"messageId\":\"m1\",\"text\":\"q1\"}"); // 6
        append("turn.started", "{\"turnId\":\"t1\",\"messageId\":\"m1\"}"); // 7
        append("text.delta", "{\"turnId\":\"t1\",\"text\":\"a\"}"); // 8
        append("message.accepted", "{\"messageId\":\"m2\",\"text\":\"q2\"}"); // 9
        append("text.delta", "{\"turnId\":\"t1\",\"text\":\"b\"}"); // 10
        append("turn.completed", "{\"turnId\":\"t1\",\"stopReason\":\"end_turn\",\"usage\":{}}"); // 11
        append("worker.status", "{\"status\":\"ready\"}"); // 12
        turn(2, true); // 13..15
    }

    @Test
    void newestPageHoldsTheLastTurnsWholeAndEverythingSinceTheTurnBefore() {
        JsonNode page = http.get("/api/conversations/" + id + "/history?turns=2", "Authorization", ALICE)
                .json();

        // From right after turn 0's end: the second turn's message, its queued successor and the status too.
        assertThat(seqs(page)).containsExactly(6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L);
        assertThat(page.get("before").asLong()).isEqualTo(6);
        assertThat(page.get("cursor").asLong()).isEqualTo(16);

        JsonNode older = http.get("/api/conversations/" + id + "/history?turns=2&before=6", "Authorization", ALICE)
                .json();
        assertThat(seqs(older)).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(older.get("before").isNull()).isTrue();
    }

    @Test
    void pagesOfACompactedConversationCarryTheFoldedBlocks() {
        context.getBean(LogCompactor.class).compact(id);

        JsonNode page = http.get("/api/conversations/" + id + "/history?turns=1", "Authorization", ALICE)
                .json();

        assertThat(types(page)).containsExactly("worker.status", "turn.started", "text.block", "turn.failed");
        assertThat(page.get("events").get(2).get("data").get("text").asString()).isEqualTo("x2y2");
        JsonNode middle = http.get(
                        "/api/conversations/" + id + "/history?turns=1&before="
                                + page.get("before").asLong(),
                        "Authorization",
                        ALICE)
                .json();
        assertThat(types(middle))
                .containsExactly(
                        "message.accepted", "turn.started", "message.accepted", "text.block", "turn.completed");
        assertThat(middle.get("events").get(3).get("data").get("text").asString())
                .isEqualTo("ab");
    }

    @Test
    void anEmptyConversationIsOnePageWithNothingBefore() {
        UUID empty = Fixtures.conversation(context, Fixtures.tenantEnvironment(context), "alice")
                .id();

        JsonNode page = http.get("/api/conversations/" + empty + "/history", "Authorization", ALICE)
                .json();

        assertThat(page.get("events")).isEmpty();
        assertThat(page.get("before").isNull()).isTrue();
        assertThat(page.get("cursor").asLong()).isZero();
    }

    @Test
    void anotherUsersConversationIsNotFoundAndBadPagesAreRefused() {
        assertThat(http.get("/api/conversations/" + id + "/history", "Authorization", BOB)
                        .status())
                .isEqualTo(404);
        assertThat(http.get("/api/conversations/" + id + "/history?turns=0", "Authorization", ALICE)
                        .status())
                .isEqualTo(400);
        assertThat(http.get("/api/conversations/" + id + "/history?before=0", "Authorization", ALICE)
                        .status())
                .isEqualTo(400);
        assertThat(http.get("/api/conversations/" + id + "/history?before=x", "Authorization", ALICE)
                        .status())
                .isEqualTo(400);
    }

    private void turn(int n, boolean fails) {
        append("turn.started", "{\"turnId\":\"t%d\",\"messageId\":\"m%d\"}".formatted(n, n));
        append("text.delta", "{\"turnId\":\"t%d\",\"text\":\"x%d\"}".formatted(n, n));
        append("text.delta", "{\"turnId\":\"t%d\",\"text\":\"y%d\"}".formatted(n, n));
        append(
                fails ? "turn.failed" : "turn.completed",
                fails
                        ? "{\"turnId\":\"t%d\",\"error\":{\"type\":\"interrupted\"}}".formatted(n)
                        : "{\"turnId\":\"t%d\",\"stopReason\":\"end_turn\",\"usage\":{}}".formatted(n));
    }

    private void append(String type, String data) {
        appended.addAll(log.append(id, List.of(new NewConversationEvent(type, data, null))));
    }

    private static List<Long> seqs(JsonNode page) {
        return StreamSupport.stream(page.get("events").spliterator(), false)
                .map(e -> e.get("seq").asLong())
                .toList();
    }

    private static List<String> types(JsonNode page) {
        return StreamSupport.stream(page.get("events").spliterator(), false)
                .map(e -> e.get("type").asString())
                .toList();
    }
}
