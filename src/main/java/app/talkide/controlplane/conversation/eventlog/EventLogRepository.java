package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code conversation_event} and {@code conversation_sequence} tables. */
@Repository
class EventLogRepository {

    private final JdbcClient jdbc;
    private final JdbcTemplate template;

    EventLogRepository(JdbcClient jdbc, JdbcTemplate template) {
        this.jdbc = jdbc;
        this.template = template;
    }

    /**
     * Numbers and inserts several appends to one conversation, in order; must run in a transaction. The
     * sequence row stays locked until that transaction ends, so any other appender to this conversation, on
     * this replica or another, waits and then continues from the number this one left.
     */
    List<List<ConversationEvent>> append(UUID conversationId, List<List<NewConversationEvent>> appends, Instant now) {
        jdbc.sql("insert into conversation_sequence (conversation_id, last_seq) values (:id, 0) on conflict do nothing")
                .param("id", conversationId)
                .update();
        long last = jdbc.sql("select last_seq from conversation_sequence where conversation_id = :id for update")
                .param("id", conversationId)
                .query(Long.class)
                .single();
        Set<String> seen = alreadyAppended(conversationId, appends);
        List<List<ConversationEvent>> stored = new ArrayList<>(appends.size());
        List<ConversationEvent> rows = new ArrayList<>();
        for (List<NewConversationEvent> append : appends) {
            List<ConversationEvent> kept = new ArrayList<>(append.size());
            for (NewConversationEvent event : append) {
                if (event.sourceEventId() != null && !seen.add(event.sourceEventId())) {
                    continue;
                }
                kept.add(new ConversationEvent(
                        conversationId, ++last, event.type(), event.data(), event.sourceEventId(), now));
            }
            rows.addAll(kept);
            stored.add(kept);
        }
        if (!rows.isEmpty()) {
            insert(rows);
            jdbc.sql("update conversation_sequence set last_seq = :last where conversation_id = :id")
                    .param("last", last)
                    .param("id", conversationId)
                    .update();
        }
        return stored;
    }

    private Set<String> alreadyAppended(UUID conversationId, List<List<NewConversationEvent>> appends) {
        Set<String> sources = new HashSet<>();
        appends.forEach(append -> append.stream()
                .map(NewConversationEvent::sourceEventId)
                .filter(Objects::nonNull)
                .forEach(sources::add));
        if (sources.isEmpty()) {
            return new HashSet<>();
        }
        return new HashSet<>(jdbc.sql("""
                        select source_event_id from conversation_event
                        where conversation_id = :id and source_event_id in (:sources)
                        """)
                .param("id", conversationId)
                .param("sources", sources)
                .query(String.class)
                .list());
    }

    private void insert(List<ConversationEvent> rows) {
        template.batchUpdate("""
                insert into conversation_event (conversation_id, seq, type, data, source_event_id, created_at)
                values (?, ?, ?, ?, ?, ?)
                """, rows, rows.size(), (statement, event) -> {
            statement.setObject(1, event.conversationId());
            statement.setLong(2, event.seq());
            statement.setString(3, event.type());
            statement.setString(4, event.data());
            statement.setString(5, event.sourceEventId());
            statement.setTimestamp(6, Timestamp.from(event.createdAt()));
        });
    }

    /** The last sequence number handed out in the conversation; 0 before its first event. */
    long lastSeq(UUID conversationId) {
        return jdbc.sql("select last_seq from conversation_sequence where conversation_id = :id")
                .param("id", conversationId)
                .query(Long.class)
                .optional()
                .orElse(0L);
    }

    List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit) {
        return jdbc.sql("""
                        select * from conversation_event
                        where conversation_id = :id and seq > :after
                        order by seq
                        limit :limit
                        """)
                .param("id", conversationId)
                .param("after", afterSeq)
                .param("limit", limit)
                .query(EventLogRepository::map)
                .list();
    }

    /** Queues a notification that PostgreSQL delivers to every listener when the transaction commits. */
    void notify(String channel, String payload) {
        jdbc.sql("select pg_notify(:channel, :payload)")
                .param("channel", channel)
                .param("payload", payload)
                .query((rs, row) -> 1)
                .list();
    }

    private static ConversationEvent map(ResultSet rs, int row) throws SQLException {
        return new ConversationEvent(
                rs.getObject("conversation_id", UUID.class),
                rs.getLong("seq"),
                rs.getString("type"),
                rs.getString("data"),
                rs.getString("source_event_id"),
                rs.getTimestamp("created_at").toInstant());
    }
}
