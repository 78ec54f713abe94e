package app.talkide.controlplane.conversation.compaction;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.eventlog.ConversationEventRows;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code conversation_compaction} table, and the reads, rewrites and deletes compaction makes in
 * {@code conversation_event}. Nothing here touches {@code conversation_sequence}, the row appends lock.
 */
@Repository
class CompactionRepository {

    private static final String RAW_TYPES = "('text.delta', 'tool.started', 'tool.completed')";

    private final JdbcClient jdbc;

    CompactionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Where compaction of one conversation stands. */
    record State(long foldedThrough, long purgedThrough, long idleThrough) {}

    /** A turn's end: its sequence number and when it was appended. */
    record TurnEnd(long seq, Instant at) {}

    /** Conversations whose log grew past what compaction last looked at; cheap: one row per conversation. */
    List<UUID> candidates(int limit) {
        return jdbc.sql("""
                        select s.conversation_id from conversation_sequence s
                        left join conversation_compaction c on c.conversation_id = s.conversation_id
                        where s.last_seq > coalesce(greatest(c.folded_through, c.idle_through), 0)
                        order by s.conversation_id
                        limit :limit
                        """).param("limit", limit).query(UUID.class).list();
    }

    /** Locks the conversation's compaction row, creating it first; the lock is held until the transaction ends. */
    State lock(UUID conversationId) {
        jdbc.sql("insert into conversation_compaction (conversation_id) values (:id) on conflict do nothing")
                .param("id", conversationId)
                .update();
        return jdbc.sql("""
                        select folded_through, purged_through, idle_through from conversation_compaction
                        where conversation_id = :id for update
                        """)
                .param("id", conversationId)
                .query((rs, row) -> new State(rs.getLong(1), rs.getLong(2), rs.getLong(3)))
                .single();
    }

    State state(UUID conversationId) {
        return jdbc.sql("""
                        select folded_through, purged_through, idle_through from conversation_compaction
                        where conversation_id = :id
                        """)
                .param("id", conversationId)
                .query((rs, row) -> new State(rs.getLong(1), rs.getLong(2), rs.getLong(3)))
                .optional()
                .orElse(new State(0, 0, 0));
    }

    long lastSeq(UUID conversationId) {
        return jdbc.sql("select last_seq from conversation_sequence where conversation_id = :id")
                .param("id", conversationId)
                .query(Long.class)
                .optional()
                .orElse(0L);
    }

    Optional<TurnEnd> nextTurnEnd(UUID conversationId, long after) {
        return jdbc.sql("""
                        select seq, created_at from conversation_event
                        where conversation_id = :id and seq > :after and type in ('turn.completed', 'turn.failed')
                        order by seq
                        limit 1
                        """)
                .param("id", conversationId)
                .param("after", after)
                .query((rs, row) ->
                        new TurnEnd(rs.getLong(1), rs.getTimestamp(2).toInstant()))
                .optional();
    }

    /** The events after {@code after} up to {@code through}, oldest first. */
    List<ConversationEvent> range(UUID conversationId, long after, long through) {
        return jdbc.sql("""
                        select * from conversation_event
                        where conversation_id = :id and seq > :after and seq <= :through
                        order by seq
                        """)
                .param("id", conversationId)
                .param("after", after)
                .param("through", through)
                .query(ConversationEventRows::map)
                .list();
    }

    /** Overwrites a block's last piece with the folded block, only if it is still that piece. */
    void rewrite(UUID conversationId, TurnFolder.Rewrite rewrite) {
        jdbc.sql("""
                        update conversation_event set type = :type, data = :data
                        where conversation_id = :id and seq = :seq and type = :fromType
                        """)
                .param("type", rewrite.type())
                .param("data", rewrite.data())
                .param("id", conversationId)
                .param("seq", rewrite.seq())
                .param("fromType", rewrite.fromType())
                .update();
    }

    void folded(UUID conversationId, long through) {
        jdbc.sql("""
                        update conversation_compaction
                        set folded_through = :through, idle_through = greatest(idle_through, :through)
                        where conversation_id = :id and folded_through < :through
                        """).param("through", through).param("id", conversationId).update();
    }

    void idle(UUID conversationId, long through) {
        jdbc.sql("""
                        update conversation_compaction set idle_through = :through
                        where conversation_id = :id and idle_through < :through
                        """).param("through", through).param("id", conversationId).update();
    }

    /**
     * Deletes the raw pieces left in a folded range (every one of them was folded: the rows that carry a
     * block now have a block's type). One statement, its own transaction; running it twice deletes nothing more.
     */
    int purge(UUID conversationId, long after, long through) {
        int deleted = jdbc.sql("""
                        delete from conversation_event
                        where conversation_id = :id and seq > :after and seq <= :through and type in %s
                        """.formatted(RAW_TYPES))
                .param("id", conversationId)
                .param("after", after)
                .param("through", through)
                .update();
        jdbc.sql("""
                        update conversation_compaction set purged_through = :through
                        where conversation_id = :id and purged_through < :through
                        """).param("through", through).param("id", conversationId).update();
        return deleted;
    }
}
