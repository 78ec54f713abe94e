package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationHistory;
import app.talkide.controlplane.conversation.TurnPage;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Pages of whole turns, newest first. A page starts right after the end of the turn before its first turn,
 * so everything between two turns (a message accepted while the previous turn ran, a worker status)
 * belongs to the later page, and no turn is ever split between two pages. Two index range scans find the
 * boundary; after compaction a turn is a handful of rows, so they read little.
 */
@Component
class TurnHistory implements ConversationHistory {

    private static final String TURN_EVENTS = "('turn.started', 'turn.completed', 'turn.failed')";

    private final JdbcClient jdbc;
    private final EventLogRepository repository;

    TurnHistory(JdbcClient jdbc, EventLogRepository repository) {
        this.jdbc = jdbc;
        this.repository = repository;
    }

    @Override
    public TurnPage turnsBefore(UUID conversationId, long before, int turns, int maxEvents) {
        long from = boundary(conversationId, before, turns);
        boolean newest = before == Long.MAX_VALUE;
        // An older page is bounded by its turns, which are compacted by then; the newest may hold a turn
        // still streaming, so it is capped and the stream goes on from its cursor.
        List<ConversationEvent> events = jdbc.sql("""
                        select * from conversation_event
                        where conversation_id = :id and seq >= :from and seq < :before
                        order by seq
                        limit :limit
                        """)
                .param("id", conversationId)
                .param("from", from)
                .param("before", before)
                .param("limit", newest ? maxEvents : Integer.MAX_VALUE)
                .query(ConversationEventRows::map)
                .list();
        long cursor = events.isEmpty()
                ? (newest ? repository.lastSeq(conversationId) : before - 1)
                : events.getLast().seq();
        return new TurnPage(events, from <= 1 ? null : from, cursor);
    }

    /** The first sequence number of the page that ends before {@code before} and holds {@code turns} turns. */
    private long boundary(UUID conversationId, long before, int turns) {
        Optional<Long> first = jdbc.sql("""
                        select seq from conversation_event
                        where conversation_id = :id and seq < :before and type = 'turn.started'
                        order by seq desc
                        limit 1 offset :skip
                        """)
                .param("id", conversationId)
                .param("before", before)
                .param("skip", turns - 1)
                .query(Long.class)
                .optional();
        if (first.isEmpty()) {
            return 1;
        }
        Optional<Long> previous = jdbc.sql("""
                        select seq from conversation_event
                        where conversation_id = :id and seq < :first and type in %s
                        order by seq desc
                        limit 1
                        """.formatted(TURN_EVENTS))
                .param("id", conversationId)
                .param("first", first.get())
                .query(Long.class)
                .optional();
        return previous.map(seq -> seq + 1).orElse(1L);
    }
}
