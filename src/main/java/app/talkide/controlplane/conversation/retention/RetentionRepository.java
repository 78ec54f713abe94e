package app.talkide.controlplane.conversation.retention;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code conversation_retention} settings, and the deletion of a conversation with all it holds. */
@Repository
class RetentionRepository {

    /**
     * Everything that refers to a conversation, children first. The worker stream lease and the worker
     * reports belong to other features, but nothing of a conversation may outlive it; usage records stay
     * (they are what was billed).
     */
    private static final List<String> CHILDREN = List.of(
            "conversation_event",
            "conversation_compaction",
            "conversation_sequence",
            "conversation_message",
            "worker_stream",
            "worker_report");

    private final JdbcClient jdbc;

    RetentionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    record Setting(TenantEnvironmentId tenantEnvironment, int keepDays) {}

    List<Setting> settings() {
        return jdbc.sql("select tenant, env, keep_days from conversation_retention order by tenant, env")
                .query((rs, row) -> new Setting(TenantEnvironmentId.of(rs.getString(1), rs.getString(2)), rs.getInt(3)))
                .list();
    }

    Optional<Integer> keepDays(TenantEnvironmentId id) {
        return jdbc.sql("select keep_days from conversation_retention where tenant = :tenant and env = :env")
                .param("tenant", id.tenant())
                .param("env", id.env())
                .query(Integer.class)
                .optional();
    }

    void set(TenantEnvironmentId id, int keepDays, Instant now) {
        int updated = jdbc.sql("""
                        update conversation_retention set keep_days = :days, updated_at = :now
                        where tenant = :tenant and env = :env
                        """)
                .param("days", keepDays)
                .param("now", Timestamp.from(now))
                .param("tenant", id.tenant())
                .param("env", id.env())
                .update();
        if (updated == 0) {
            jdbc.sql("""
                            insert into conversation_retention (tenant, env, keep_days, updated_at)
                            values (:tenant, :env, :days, :now)
                            on conflict do nothing
                            """)
                    .param("days", keepDays)
                    .param("now", Timestamp.from(now))
                    .param("tenant", id.tenant())
                    .param("env", id.env())
                    .update();
        }
    }

    void keep(TenantEnvironmentId id) {
        jdbc.sql("delete from conversation_retention where tenant = :tenant and env = :env")
                .param("tenant", id.tenant())
                .param("env", id.env())
                .update();
    }

    /** Conversations of the tenant-environment started before the cutoff with no event since. */
    List<UUID> idleSince(TenantEnvironmentId id, Instant cutoff, int limit) {
        return jdbc.sql("""
                        select c.id from conversation c
                        where c.tenant = :tenant and c.env = :env and c.created_at < :cutoff
                        and not exists (
                            select 1 from conversation_event e where e.conversation_id = c.id and e.created_at >= :cutoff)
                        order by c.created_at
                        limit :limit
                        """)
                .param("tenant", id.tenant())
                .param("env", id.env())
                .param("cutoff", Timestamp.from(cutoff))
                .param("limit", limit)
                .query(UUID.class)
                .list();
    }

    /**
     * Deletes the conversation if it is still idle since the cutoff; must run in a transaction. Its row is
     * locked first, so an append that raced the look-up (it inserts the sequence row, which references the
     * conversation) either committed before, and the check below sees it, or waits and then fails.
     */
    boolean deleteIfIdle(UUID conversationId, Instant cutoff) {
        boolean exists = jdbc.sql("select id from conversation where id = :id for update")
                .param("id", conversationId)
                .query(UUID.class)
                .optional()
                .isPresent();
        if (!exists) {
            return false;
        }
        boolean active = jdbc.sql("""
                        select count(*) from conversation_event where conversation_id = :id and created_at >= :cutoff
                        """)
                        .param("id", conversationId)
                        .param("cutoff", Timestamp.from(cutoff))
                        .query(Long.class)
                        .single()
                > 0;
        if (active) {
            return false;
        }
        CHILDREN.forEach(table -> jdbc.sql("delete from " + table + " where conversation_id = :id")
                .param("id", conversationId)
                .update());
        jdbc.sql("delete from conversation where id = :id")
                .param("id", conversationId)
                .update();
        return true;
    }
}
