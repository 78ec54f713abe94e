package app.talkide.controlplane.budget;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The SQL of per-call reservations held in the database ({@code budget_reservation}): a row per call
 * reserved past the lease, so a replica that dies with the call leaves a row that expiry gives back.
 */
@Repository
class ReservationRepository {

    /** A reservation past its expiry, whose amount goes back to its user. */
    record Expired(UUID id, String userId, long amountMicros) {}

    private final JdbcClient jdbc;
    private final JdbcTemplate statements;

    ReservationRepository(JdbcClient jdbc, JdbcTemplate statements) {
        this.jdbc = jdbc;
        this.statements = statements;
    }

    void insert(UUID id, String userId, long amount, Instant now, Instant expiresAt) {
        jdbc.sql("insert into budget_reservation (id, user_id, amount_micros, created_at, expires_at)"
                        + " values (:id, :user, :amount, :now, :expires)")
                .param("id", id)
                .param("user", userId)
                .param("amount", amount)
                .param("now", Timestamp.from(now))
                .param("expires", Timestamp.from(expiresAt))
                .update();
    }

    /** Raises a reservation and renews its expiry; false if it is gone (expired and given back). */
    boolean grow(UUID id, long delta, Instant expiresAt) {
        return jdbc.sql("update budget_reservation set amount_micros = amount_micros + :delta,"
                                + " expires_at = :expires where id = :id")
                        .param("id", id)
                        .param("delta", delta)
                        .param("expires", Timestamp.from(expiresAt))
                        .update()
                == 1;
    }

    /** Deletes the reservations in one round trip; for each, whether it was still there (still ours). */
    boolean[] delete(List<UUID> ids) {
        int[][] deleted = statements.batchUpdate(
                "delete from budget_reservation where id = ?",
                ids,
                ids.size(),
                (statement, id) -> statement.setObject(1, id));
        // One chunk: the whole list is one JDBC batch.
        boolean[] ours = new boolean[ids.size()];
        for (int i = 0; i < ours.length; i++) {
            ours[i] = deleted[0][i] == 1;
        }
        return ours;
    }

    List<Expired> expired(Instant now, int limit) {
        return jdbc.sql("select id, user_id, amount_micros from budget_reservation where expires_at < :now"
                        + " order by expires_at fetch first " + limit + " rows only")
                .param("now", Timestamp.from(now))
                .query((rs, row) -> new Expired(
                        rs.getObject("id", UUID.class), rs.getString("user_id"), rs.getLong("amount_micros")))
                .list();
    }

    /** Deletes a reservation only if it is still expired (an extension since the look-up keeps it alive). */
    boolean deleteIfExpired(UUID id, Instant now) {
        return jdbc.sql("delete from budget_reservation where id = :id and expires_at < :now")
                        .param("id", id)
                        .param("now", Timestamp.from(now))
                        .update()
                == 1;
    }
}
