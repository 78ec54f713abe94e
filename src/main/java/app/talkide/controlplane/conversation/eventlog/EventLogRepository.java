package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
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
     * Numbers and inserts the appends of several conversations, each conversation's in order; must run in
     * a transaction. The conversations' sequence rows stay locked until it ends, so any other appender to
     * them, on this replica or another, waits and then continues from the numbers this one left. A few
     * statements per batch whatever its size: lock, look up worker ids, insert, move the sequences.
     */
    Map<UUID, List<List<ConversationEvent>>> append(
            SortedMap<UUID, List<List<NewConversationEvent>>> appends, Instant now) {
        Map<UUID, Long> last = lockSequences(appends.keySet());
        Map<UUID, Set<String>> seen = alreadyAppended(appends);
        Map<UUID, List<List<ConversationEvent>>> stored = new LinkedHashMap<>();
        List<ConversationEvent> rows = new ArrayList<>();
        Map<UUID, Long> moved = new LinkedHashMap<>();
        appends.forEach((conversationId, batches) -> {
            long seq = last.get(conversationId);
            Set<String> sources = seen.computeIfAbsent(conversationId, id -> new HashSet<>());
            List<List<ConversationEvent>> kept = new ArrayList<>(batches.size());
            for (List<NewConversationEvent> batch : batches) {
                List<ConversationEvent> events = new ArrayList<>(batch.size());
                for (NewConversationEvent event : batch) {
                    if (event.sourceEventId() != null && !sources.add(event.sourceEventId())) {
                        continue;
                    }
                    events.add(new ConversationEvent(
                            conversationId, ++seq, event.type(), event.data(), event.sourceEventId(), now));
                }
                rows.addAll(events);
                kept.add(events);
            }
            if (seq != last.get(conversationId)) {
                moved.put(conversationId, seq);
            }
            stored.put(conversationId, kept);
        });
        if (!rows.isEmpty()) {
            insert(rows);
            List<Map.Entry<UUID, Long>> updates = new ArrayList<>(moved.entrySet());
            template.batchUpdate(
                    "update conversation_sequence set last_seq = ? where conversation_id = ?",
                    updates,
                    updates.size(),
                    (statement, update) -> {
                        statement.setLong(1, update.getValue());
                        statement.setObject(2, update.getKey());
                    });
        }
        return stored;
    }

    /** Locks the conversations' sequence rows, creating those that do not exist yet; their last numbers. */
    private Map<UUID, Long> lockSequences(Set<UUID> conversationIds) {
        Map<UUID, Long> last = selectForUpdate(conversationIds);
        if (last.size() < conversationIds.size()) {
            List<UUID> missing =
                    conversationIds.stream().filter(id -> !last.containsKey(id)).toList();
            template.batchUpdate(
                    "insert into conversation_sequence (conversation_id, last_seq) values (?, 0) on conflict do nothing",
                    missing,
                    missing.size(),
                    (statement, id) -> statement.setObject(1, id));
            last.putAll(selectForUpdate(missing));
        }
        return last;
    }

    private Map<UUID, Long> selectForUpdate(Collection<UUID> conversationIds) {
        Map<UUID, Long> last = new HashMap<>();
        jdbc.sql("""
                        select conversation_id, last_seq from conversation_sequence
                        where conversation_id in (:ids)
                        order by conversation_id
                        for update
                        """)
                .param("ids", conversationIds)
                .query((rs, row) -> last.put(rs.getObject(1, UUID.class), rs.getLong(2)))
                .list();
        return last;
    }

    /** The worker event ids among the appends that the log already has, per conversation: one query. */
    private Map<UUID, Set<String>> alreadyAppended(Map<UUID, List<List<NewConversationEvent>>> appends) {
        Set<UUID> conversations = new HashSet<>();
        Set<String> sources = new HashSet<>();
        appends.forEach((conversationId, batches) -> batches.forEach(batch -> batch.stream()
                .map(NewConversationEvent::sourceEventId)
                .filter(Objects::nonNull)
                .forEach(source -> {
                    conversations.add(conversationId);
                    sources.add(source);
                })));
        Map<UUID, Set<String>> seen = new HashMap<>();
        if (sources.isEmpty()) {
            return seen;
        }
        jdbc.sql("""
                        select conversation_id, source_event_id from conversation_event
                        where conversation_id in (:ids) and source_event_id in (:sources)
                        """)
                .param("ids", conversations)
                .param("sources", sources)
                .query((rs, row) -> seen.computeIfAbsent(rs.getObject(1, UUID.class), id -> new HashSet<>())
                        .add(rs.getString(2)))
                .list();
        return seen;
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
                .query(ConversationEventRows::map)
                .list();
    }

    Optional<ConversationEvent> lastOfTypes(UUID conversationId, Collection<String> types) {
        return jdbc.sql("""
                        select * from conversation_event
                        where conversation_id = :id and type in (:types)
                        order by seq desc
                        limit 1
                        """)
                .param("id", conversationId)
                .param("types", types)
                .query(ConversationEventRows::map)
                .optional();
    }

    /** Queues a notification that PostgreSQL delivers to every listener when the transaction commits. */
    void notify(String channel, String payload) {
        jdbc.sql("select pg_notify(:channel, :payload)")
                .param("channel", channel)
                .param("payload", payload)
                .query((rs, row) -> 1)
                .list();
    }
}
