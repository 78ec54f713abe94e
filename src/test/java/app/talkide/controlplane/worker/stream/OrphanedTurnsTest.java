package app.talkide.controlplane.worker.stream;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OrphanedTurnsTest {

    static final UUID CONVERSATION = UUID.randomUUID();
    static final NewConversationEvent NEW_SESSION =
            new NewConversationEvent("session.status", "{\"status\":\"ready\",\"detail\":\"new session\"}", "e2-1");

    final Log log = new Log();

    @Test
    void workerRestartedWithANewSessionWhileATurnRanEndsThatTurnSoTheNextMessageFlows() {
        log.stored.add(event("turn.started", "{\"turnId\":\"t1\",\"messageId\":\"m1\"}"));
        log.stored.add(event("text.delta", "{\"turnId\":\"t1\",\"text\":\"hal\"}"));

        List<NewConversationEvent> closed = OrphanedTurns.close(log, CONVERSATION, List.of(NEW_SESSION));

        assertThat(closed).hasSize(2);
        assertThat(closed.get(0).type()).isEqualTo("turn.failed");
        assertThat(closed.get(0).data()).contains("\"turnId\":\"t1\"").contains("worker_restarted");
        assertThat(closed.get(0).sourceEventId()).isEqualTo("cp-worker-restarted:t1");
        assertThat(closed.get(1)).isEqualTo(NEW_SESSION);
    }

    @Test
    void aTurnStartedEarlierInTheSameBatchIsClosedToo() {
        NewConversationEvent started =
                new NewConversationEvent("turn.started", "{\"turnId\":\"t2\",\"messageId\":\"m2\"}", "e1-9");

        List<NewConversationEvent> closed = OrphanedTurns.close(log, CONVERSATION, List.of(started, NEW_SESSION));

        assertThat(closed)
                .extracting(NewConversationEvent::type)
                .containsExactly("turn.started", "turn.failed", "session.status");
    }

    @Test
    void noOpenTurnOrAResumedSessionChangesNothing() {
        log.stored.add(event("turn.started", "{\"turnId\":\"t1\",\"messageId\":\"m1\"}"));
        log.stored.add(event("turn.completed", "{\"turnId\":\"t1\",\"stopReason\":\"end_turn\"}"));
        List<NewConversationEvent> batch = List.of(NEW_SESSION);
        assertThat(OrphanedTurns.close(log, CONVERSATION, batch)).isSameAs(batch);

        log.stored.add(event("turn.started", "{\"turnId\":\"t3\",\"messageId\":\"m3\"}"));
        List<NewConversationEvent> resumed =
                List.of(new NewConversationEvent("session.status", "{\"status\":\"resumed\"}", "e1-20"));
        assertThat(OrphanedTurns.close(log, CONVERSATION, resumed)).isSameAs(resumed);
    }

    private ConversationEvent event(String type, String data) {
        return new ConversationEvent(CONVERSATION, log.stored.size() + 1, type, data, null, Instant.EPOCH);
    }

    /** Only what the rule reads: the newest event of some types. */
    static final class Log implements ConversationEventLog {

        final List<ConversationEvent> stored = new ArrayList<>();

        @Override
        public List<ConversationEvent> append(UUID conversationId, List<NewConversationEvent> events) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<ConversationEvent> lastOfTypes(UUID conversationId, Collection<String> types) {
            return stored.reversed().stream()
                    .filter(event -> types.contains(event.type()))
                    .findFirst();
        }

        @Override
        public List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit) {
            throw new UnsupportedOperationException();
        }
    }
}
