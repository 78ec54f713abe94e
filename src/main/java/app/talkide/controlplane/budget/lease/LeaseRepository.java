package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.LimitWindows;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The SQL of leases. Every change locks the lease row before the user's row (as settlement does), so
 * two replicas' statements never wait on each other in opposite orders.
 */
@Repository
class LeaseRepository {

    private final JdbcClient jdbc;
    private final JdbcTemplate statements;

    LeaseRepository(JdbcClient jdbc, JdbcTemplate statements) {
        this.jdbc = jdbc;
        this.statements = statements;
    }

    /** The lease row of this replica, created empty if absent, locked for the rest of the transaction. */
    StoredLease lock(String userId, String replica, LimitWindows now, Instant expires) {
        jdbc.sql("insert into budget_lease (user_id, replica_id, amount_micros, slots, minute_start, permits,"
                        + " expires_at) values (:user, :replica, 0, 0, :minute, 0, :expires) on conflict do nothing")
                .param("user", userId)
                .param("replica", replica)
                .param("minute", Timestamp.from(now.minute()))
                .param("expires", Timestamp.from(expires))
                .update();
        return jdbc.sql("select amount_micros, slots, minute_start, permits from budget_lease"
                        + " where user_id = :user and replica_id = :replica for update")
                .param("user", userId)
                .param("replica", replica)
                .query((rs, row) -> new StoredLease(
                        rs.getLong("amount_micros"),
                        rs.getInt("slots"),
                        rs.getTimestamp("minute_start").toInstant(),
                        rs.getInt("permits")))
                .single();
    }

    /**
     * Counts a grant in the user's row, if it still fits every limit with {@code floor} of the budget
     * left over (the decision was made from an unlocked read), and then in the lease row, locked by this
     * transaction already. False if it no longer fits: nothing was changed.
     */
    boolean grant(
            String userId,
            String replica,
            Grant grant,
            long floor,
            boolean force,
            BudgetRepository.Limits defaults,
            LimitWindows now,
            Instant expires) {
        int counted = jdbc.sql("update user_budget set"
                        + " spent_micros = " + SPENT_NOW + ","
                        + " period_start = greatest(period_start, :period),"
                        + " reserved_micros = reserved_micros + :micros,"
                        + " in_flight = in_flight + :slots,"
                        + " minute_requests = " + MINUTE_NOW + " + :permits,"
                        + " minute_start = greatest(minute_start, :minute),"
                        + " updated_at = :now where user_id = :user"
                        // A grant of requests or slots alone adds no money, but the lease must not keep money a
                        // lowered limit no longer covers: it too needs spent + reserved within the limit.
                        + " and (:force or " + SPENT_NOW + " + reserved_micros + :micros"
                        + "      + (case when :micros = 0 then 0 else :floor end) <= coalesce(limit_micros, :defaultLimit))"
                        + " and (:slots = 0 or in_flight + :slots <= coalesce(max_concurrent, :defaultConcurrent))"
                        + " and (:permits = 0 or " + MINUTE_NOW + " + :permits"
                        + "      <= coalesce(requests_per_minute, :defaultRpm))")
                .param("user", userId)
                .param("micros", grant.micros())
                .param("slots", grant.slots())
                .param("permits", grant.permits())
                .param("floor", floor)
                .param("force", force)
                .param("defaultLimit", defaults.limitMicros())
                .param("defaultConcurrent", defaults.maxConcurrent())
                .param("defaultRpm", defaults.requestsPerMinute())
                .params(now.asParams())
                .update();
        if (counted == 0) {
            return false;
        }
        jdbc.sql("update budget_lease set amount_micros = amount_micros + :micros, slots = slots + :slots,"
                        + " permits = case when minute_start = :minute then permits + :permits else :permits end,"
                        + " minute_start = :minute, expires_at = :expires"
                        + " where user_id = :user and replica_id = :replica")
                .param("user", userId)
                .param("replica", replica)
                .param("micros", grant.micros())
                .param("slots", grant.slots())
                .param("permits", grant.permits())
                .param("minute", Timestamp.from(now.minute()))
                .param("expires", Timestamp.from(expires))
                .update();
        return true;
    }

    private static final String SPENT_NOW = "(case when period_start >= :period then spent_micros else 0 end)";
    private static final String MINUTE_NOW = "(case when minute_start >= :minute then minute_requests else 0 end)";

    /**
     * Deletes a lease and gives back what it held; {@code unusedPermits} of {@code minute} go back only
     * if that minute is still the row's. False if the lease was gone already (it expired).
     */
    boolean giveBack(String userId, String replica, int unusedPermits, Instant minute) {
        var stored = jdbc.sql("select amount_micros, slots from budget_lease"
                        + " where user_id = :user and replica_id = :replica for update")
                .param("user", userId)
                .param("replica", replica)
                .query((rs, row) -> new long[] {rs.getLong(1), rs.getInt(2)})
                .optional();
        if (stored.isEmpty()) {
            return false;
        }
        jdbc.sql("delete from budget_lease where user_id = :user and replica_id = :replica")
                .param("user", userId)
                .param("replica", replica)
                .update();
        release(userId, stored.get()[0], (int) stored.get()[1], unusedPermits, minute);
        return true;
    }

    private void release(String userId, long micros, int slots, int permits, @Nullable Instant minute) {
        jdbc.sql("update user_budget set reserved_micros = reserved_micros - :micros, in_flight = in_flight - :slots,"
                        + " minute_requests = case when minute_start = :minute then minute_requests - :permits"
                        + "   else minute_requests end"
                        + " where user_id = :user")
                .param("user", userId)
                .param("micros", micros)
                .param("slots", slots)
                .param("permits", permits)
                .param("minute", Timestamp.from(minute == null ? Instant.EPOCH : minute))
                .update();
    }

    /**
     * Shrinks this replica's leases in one round trip, in the given order; for each, whether its lease was
     * still there (not expired meanwhile).
     */
    boolean[] shrink(List<BudgetLeases.Shrink> shrinks, String replica) {
        int[][] shrunk = statements.batchUpdate(
                "update budget_lease set amount_micros = amount_micros - ? where user_id = ? and replica_id = ?",
                shrinks,
                shrinks.size(),
                (statement, shrink) -> {
                    statement.setLong(1, shrink.micros());
                    statement.setString(2, shrink.userId());
                    statement.setString(3, replica);
                });
        // One chunk: the whole list is one JDBC batch.
        boolean[] there = new boolean[shrinks.size()];
        for (int i = 0; i < there.length; i++) {
            there[i] = shrunk[0][i] == 1;
        }
        return there;
    }

    /**
     * Asks the other replicas holding a lease of the user to give back what they do not use (they
     * revoke it); how many.
     */
    int recall(String userId, String replica) {
        return jdbc.sql("update budget_lease set recalled = true where user_id = :user and replica_id <> :replica"
                        + " and (amount_micros > 0 or slots > 0)")
                .param("user", userId)
                .param("replica", replica)
                .update();
    }

    /**
     * Revokes every other replica's lease of the user (its settings changed): each shrinks to what its
     * calls hold and admits nothing more from memory, at its next sweep. Returns how many were asked.
     */
    int revokeOthers(String userId, String replica) {
        return jdbc.sql("update budget_lease set recalled = true where user_id = :user and replica_id <> :replica")
                .param("user", userId)
                .param("replica", replica)
                .update();
    }

    /** How many other replicas' leases of the user have not yet answered a recall or revocation. */
    int unanswered(String userId, String replica) {
        return jdbc.sql("select count(*) from budget_lease where user_id = :user and replica_id <> :replica"
                        + " and recalled")
                .param("user", userId)
                .param("replica", replica)
                .query(Integer.class)
                .single();
    }

    /** What the other replicas' leases of the user hold (used or not). */
    long heldByOthers(String userId, String replica) {
        return jdbc.sql("select coalesce(sum(amount_micros), 0) from budget_lease where user_id = :user"
                        + " and replica_id <> :replica")
                .param("user", userId)
                .param("replica", replica)
                .query(Long.class)
                .single();
    }

    /** Users whose lease of this replica another replica recalled. */
    List<String> recalled(String replica) {
        return jdbc.sql("select user_id from budget_lease where replica_id = :replica and recalled")
                .param("replica", replica)
                .query(String.class)
                .list();
    }

    /** Gives back part of a lease (what no call holds) and clears its recall; false if the lease is gone. */
    boolean giveBackPart(String userId, String replica, long micros, int slots, int permits, Instant minute) {
        int changed = jdbc.sql("update budget_lease set amount_micros = amount_micros - :micros,"
                        + " slots = slots - :slots, recalled = false where user_id = :user and replica_id = :replica")
                .param("user", userId)
                .param("replica", replica)
                .param("micros", micros)
                .param("slots", slots)
                .update();
        if (changed == 0) {
            return false;
        }
        release(userId, micros, slots, permits, minute);
        return true;
    }

    /** Renews the leases in use of this replica; returns the users whose lease was no longer there. */
    List<String> renew(String replica, List<String> users, Instant expires) {
        return users.stream()
                .filter(user -> jdbc.sql("update budget_lease set expires_at = :expires"
                                        + " where user_id = :user and replica_id = :replica")
                                .param("user", user)
                                .param("replica", replica)
                                .param("expires", Timestamp.from(expires))
                                .update()
                        == 0)
                .toList();
    }

    List<ExpiredLease> expired(Instant now, int limit) {
        return jdbc.sql("select user_id, replica_id from budget_lease where expires_at < :now"
                        + " order by expires_at fetch first " + limit + " rows only")
                .param("now", Timestamp.from(now))
                .query((rs, row) -> new ExpiredLease(rs.getString(1), rs.getString(2)))
                .list();
    }

    /** Gives back a lease only if it is still expired (a renewal since the look-up keeps it). */
    boolean expireIfStill(ExpiredLease lease, Instant now) {
        var stored = jdbc.sql("select amount_micros, slots from budget_lease where user_id = :user"
                        + " and replica_id = :replica and expires_at < :now for update")
                .param("user", lease.userId())
                .param("replica", lease.replica())
                .param("now", Timestamp.from(now))
                .query((rs, row) -> new long[] {rs.getLong(1), rs.getInt(2)})
                .optional();
        if (stored.isEmpty()) {
            return false;
        }
        jdbc.sql("delete from budget_lease where user_id = :user and replica_id = :replica")
                .param("user", lease.userId())
                .param("replica", lease.replica())
                .update();
        // Its requests counted in a minute long past by now; only money and slots come back.
        release(lease.userId(), stored.get()[0], (int) stored.get()[1], 0, null);
        return true;
    }

    record StoredLease(long micros, int slots, Instant minute, int permits) {}

    /**
     * What one top-up adds to a lease.
     *
     * @param hourTokens the user's uncached tokens this hour, as the row says at the grant
     * @param tokensPerHour the user's tokens-per-hour limit
     */
    record Grant(long micros, int slots, int permits, long hourTokens, long tokensPerHour) {}

    record ExpiredLease(String userId, String replica) {}
}
