package app.talkide.controlplane.worker.stream;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code worker_stream} table. Every write a holder makes is conditional on still being the holder,
 * so a replica that lost its lease (paused, partitioned) can no longer move the cursor or release a
 * stream someone else now consumes.
 */
@Repository
class StreamLeaseRepository {

    private final JdbcClient jdbc;

    StreamLeaseRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Marks the stream as needed; creates its row on first use. */
    void demand(UUID conversationId, Instant now) {
        int updated = jdbc.sql("""
                        update worker_stream set active = true, demand = demand + 1, updated_at = :now
                        where conversation_id = :id
                        """)
                .param("id", conversationId)
                .param("now", Timestamp.from(now))
                .update();
        if (updated == 0) {
            try {
                jdbc.sql("""
                                insert into worker_stream (conversation_id, active, demand, updated_at)
                                values (:id, true, 1, :now)
                                """)
                        .param("id", conversationId)
                        .param("now", Timestamp.from(now))
                        .update();
            } catch (DuplicateKeyException raced) {
                demand(conversationId, now);
            }
        }
    }

    /** Takes the lease if it is free, expired or already ours. */
    Optional<StreamLease> claim(UUID conversationId, String holder, Instant now, Duration ttl) {
        int updated = jdbc.sql("""
                        update worker_stream
                        set holder = :holder, lease_expires_at = :expires, active = true, updated_at = :now
                        where conversation_id = :id
                          and (holder is null or holder = :holder or lease_expires_at < :now)
                        """)
                .param("id", conversationId)
                .param("holder", holder)
                .param("expires", Timestamp.from(now.plus(ttl)))
                .param("now", Timestamp.from(now))
                .update();
        if (updated == 0) {
            return Optional.empty();
        }
        return jdbc.sql("select last_event_id, demand from worker_stream where conversation_id = :id")
                .param("id", conversationId)
                .query((rs, row) -> new StreamLease(rs.getString("last_event_id"), rs.getLong("demand")))
                .optional();
    }

    /** Extends our lease and records the cursor; the current demand, or empty if the lease is no longer ours. */
    Optional<Long> renew(UUID conversationId, String holder, @Nullable String lastEventId, Instant now, Duration ttl) {
        int updated = jdbc.sql("""
                        update worker_stream
                        set lease_expires_at = :expires, last_event_id = coalesce(:last, last_event_id), updated_at = :now
                        where conversation_id = :id and holder = :holder
                        """)
                .param("id", conversationId)
                .param("holder", holder)
                .param("last", lastEventId)
                .param("expires", Timestamp.from(now.plus(ttl)))
                .param("now", Timestamp.from(now))
                .update();
        if (updated == 0) {
            return Optional.empty();
        }
        return jdbc.sql("select demand from worker_stream where conversation_id = :id")
                .param("id", conversationId)
                .query(Long.class)
                .optional();
    }

    /** Moves the cursor; false if the lease is no longer ours. */
    boolean recordCursor(UUID conversationId, String holder, String lastEventId, Instant now) {
        return jdbc.sql("""
                                update worker_stream set last_event_id = :last, updated_at = :now
                                where conversation_id = :id and holder = :holder
                                """)
                        .param("id", conversationId)
                        .param("holder", holder)
                        .param("last", lastEventId)
                        .param("now", Timestamp.from(now))
                        .update()
                == 1;
    }

    /** Lets an idle stream go, unless someone asked for it since we last looked ({@code demand} moved). */
    boolean release(UUID conversationId, String holder, @Nullable String lastEventId, long demandSeen, Instant now) {
        return jdbc.sql("""
                                update worker_stream
                                set active = false, holder = null, lease_expires_at = null,
                                    last_event_id = coalesce(:last, last_event_id), updated_at = :now
                                where conversation_id = :id and holder = :holder and demand = :demand
                                """)
                        .param("id", conversationId)
                        .param("holder", holder)
                        .param("last", lastEventId)
                        .param("demand", demandSeen)
                        .param("now", Timestamp.from(now))
                        .update()
                == 1;
    }

    /** Hands an active stream over at once (graceful shutdown): another replica claims it on its next sweep. */
    void handOver(UUID conversationId, String holder, @Nullable String lastEventId, Instant now) {
        jdbc.sql("""
                        update worker_stream
                        set holder = null, lease_expires_at = null,
                            last_event_id = coalesce(:last, last_event_id), updated_at = :now
                        where conversation_id = :id and holder = :holder
                        """)
                .param("id", conversationId)
                .param("holder", holder)
                .param("last", lastEventId)
                .param("now", Timestamp.from(now))
                .update();
    }

    /** Active streams nobody holds: never claimed, handed over, or whose holder stopped renewing. */
    List<UUID> orphaned(Instant now, int limit) {
        return jdbc.sql("""
                        select conversation_id from worker_stream
                        where active = true and (holder is null or lease_expires_at < :now)
                        order by updated_at
                        limit :limit
                        """)
                .param("now", Timestamp.from(now))
                .param("limit", limit)
                .query(UUID.class)
                .list();
    }

    Optional<String> lastEventId(UUID conversationId) {
        return jdbc.sql("select last_event_id from worker_stream where conversation_id = :id")
                .param("id", conversationId)
                .query(String.class)
                .optional();
    }
}
