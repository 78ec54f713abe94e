package app.talkide.controlplane.conversation.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.MutableClock;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;

/** The compaction job: when a turn is folded, and that appends never wait for it. */
@DatabaseTest
@Import(ClockTestConfiguration.class)
@SpringBootTest(
        properties = {"talkide.conversations.compaction.enabled=false", "talkide.conversations.compaction.after=1m"})
class LogCompactorTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    ConversationEventLog log;

    @Autowired
    LogCompactor compactor;

    @Autowired
    MutableClock clock;

    @Autowired
    DataSource dataSource;

    @Test
    void aTurnIsFoldedOnlyOnceItEndedLongerAgoThanTheSettleTimeAndARunningTurnNever() {
        UUID id = conversation();
        turn(id, "t1", true);
        turn(id, "t2", false);

        assertThat(compactor.compact(id)).isZero();
        assertThat(types(id)).contains("text.delta").doesNotContain("text.block");

        clock.advance(Duration.ofMinutes(2));
        assertThat(compactor.compact(id)).isEqualTo(1);
        assertThat(types(id))
                .containsExactly(
                        "turn.started", "text.block", "turn.completed", "turn.started", "text.delta", "text.delta");
        assertThat(compactor.compact(id)).as("folded once").isZero();
    }

    @Test
    void appendsGoThroughWhileACompactionHoldsItsLockAndHasDeletedUncommitted() throws Exception {
        UUID id = conversation();
        turn(id, "t1", true);
        clock.advance(Duration.ofMinutes(2));
        compactor.compact(id);
        turn(id, "t2", true);
        try (Connection compaction = dataSource.getConnection()) {
            compaction.setAutoCommit(false);
            try (Statement statement = compaction.createStatement()) {
                statement.executeQuery(
                        "select * from conversation_compaction where conversation_id = '" + id + "' for update");
                statement.executeUpdate(
                        "delete from conversation_event where conversation_id = '" + id + "' and type = 'text.delta'");
            }

            CompletableFuture<List<ConversationEvent>> append = CompletableFuture.supplyAsync(() ->
                    log.append(id, List.of(new NewConversationEvent("worker.status", "{\"status\":\"ready\"}", null))));

            assertThat(append.get(20, TimeUnit.SECONDS)).hasSize(1);
            compaction.rollback();
        }
    }

    private UUID conversation() {
        return Fixtures.conversation(context, Fixtures.tenantEnvironment(context), "alice")
                .id();
    }

    private void turn(UUID id, String turnId, boolean ends) {
        String turn = "\"turnId\":\"" + turnId + "\"";
        log.append(id, List.of(new NewConversationEvent("turn.started", "{" + turn + "}", null)));
        log.append(id, List.of(new NewConversationEvent("text.delta", "{" + turn + ",\"text\":\"a\"}", null)));
        log.append(id, List.of(new NewConversationEvent("text.delta", "{" + turn + ",\"text\":\"b\"}", null)));
        if (ends) {
            log.append(
                    id,
                    List.of(new NewConversationEvent(
                            "turn.completed", "{" + turn + ",\"stopReason\":\"end_turn\",\"usage\":{}}", null)));
        }
    }

    private List<String> types(UUID id) {
        return log.readAfter(id, 0, 1000).stream().map(ConversationEvent::type).toList();
    }
}
