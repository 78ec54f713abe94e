package app.talkide.controlplane.budget.account;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The SQL behind budgets. Every statement that changes {@code user_budget} rolls the period over in
 * place ({@code case when period_start >= :period ...}), so no separate job has to reset spend at the
 * start of a month and no replica's late settlement can land in a period already reset.
 */
@Repository
public class BudgetRepository {

    /** Spend of the current period: what is stored, or nothing if the row still holds an earlier period. */
    private static final String SPENT_NOW = "(case when period_start >= :period then spent_micros else 0 end)";

    // Positional, set straight from each user's settlement: it runs in every settlement commit.
    private static final String SETTLE = "update user_budget set"
            + " spent_micros = (case when period_start >= ? then spent_micros else 0 end) + ?,"
            + " period_start = greatest(period_start, ?),"
            + " reserved_micros = reserved_micros - ?,"
            + " in_flight = in_flight - ?,"
            + " hour_tokens = case when hour_start >= ? then hour_tokens + ? else ? end,"
            + " hour_start = greatest(hour_start, ?),"
            + " updated_at = ?"
            + " where user_id = ?";

    private final JdbcClient jdbc;
    private final JdbcTemplate statements;
    private final boolean postgres;

    BudgetRepository(JdbcClient jdbc, JdbcTemplate statements, DataSource dataSource) {
        this.jdbc = jdbc;
        this.statements = statements;
        this.postgres = isPostgres(dataSource);
    }

    /**
     * Lets the current transaction commit without waiting for its WAL flush (PostgreSQL only), so it
     * releases the user's row at once instead of holding it through an fsync. Reservations and
     * extensions sit on every call's path to its first byte: losing one in a database crash is
     * harmless (the call settles without it, or never happened). Settlements commit durably.
     */
    public void commitWithoutWaitingForDisk() {
        if (postgres) {
            jdbc.sql("set local synchronous_commit to off").update();
        }
    }

    private static boolean isPostgres(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return "PostgreSQL".equalsIgnoreCase(connection.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot tell which database the budgets live in", e);
        }
    }

    /** The check and the count in one statement: true if the call fits every limit and was counted. */
    public boolean reserve(String userId, long amount, Limits defaults, LimitWindows now) {
        return reserving("update user_budget set" + COUNT_IF_IT_FITS, userId, amount, defaults, now)
                        .update()
                == 1;
    }

    /** Whether a settlement commit can be one statement (PostgreSQL: data-modifying {@code with} and arrays). */
    public boolean settlesInOneStatement() {
        return postgres;
    }

    /** Whether {@link #reserveWithRecord} is available: the whole reservation as one statement. */
    public boolean reservesInOneStatement() {
        return postgres;
    }

    /**
     * PostgreSQL only: check, count and reservation row in one atomic statement without waiting for the WAL
     * flush ({@link #commitWithoutWaitingForDisk()}): one round trip on the way to a call's first byte.
     */
    public boolean reserveWithRecord(
            UUID id, String userId, long amount, Limits defaults, LimitWindows now, Instant expiresAt) {
        return reserving(
                                "with counted as (update user_budget set" + COUNT_IF_IT_FITS + " returning user_id)"
                                        + " insert into budget_reservation"
                                        + " (id, user_id, amount_micros, created_at, expires_at)"
                                        + " select :id, user_id, :amount, :now, :expires"
                                        // set_config(..., true) lasts to this statement's own commit
                                        + " from counted, (select set_config('synchronous_commit', 'off', true)) async",
                                userId,
                                amount,
                                defaults,
                                now)
                        .param("id", id)
                        .param("expires", Timestamp.from(expiresAt))
                        .update()
                == 1;
    }

    /** Spend, reservation, slot and minute counted, where the call fits every limit. */
    private static final String COUNT_IF_IT_FITS = " spent_micros = " + SPENT_NOW + ","
            + " period_start = greatest(period_start, :period),"
            + " reserved_micros = reserved_micros + :amount,"
            + " in_flight = in_flight + 1,"
            + " minute_requests = case when minute_start >= :minute then minute_requests + 1 else 1 end,"
            + " minute_start = greatest(minute_start, :minute),"
            + " updated_at = :now"
            + " where user_id = :user"
            + " and " + SPENT_NOW + " + reserved_micros + :amount"
            + "     <= coalesce(limit_micros, :defaultLimit)"
            + " and in_flight < coalesce(max_concurrent, :defaultConcurrent)"
            + " and (minute_start < :minute"
            + "      or minute_requests < coalesce(requests_per_minute, :defaultRpm))"
            + " and (hour_start < :hour or hour_tokens < coalesce(tokens_per_hour, :defaultTph))";

    private JdbcClient.StatementSpec reserving(
            String sql, String userId, long amount, Limits defaults, LimitWindows now) {
        return jdbc.sql(sql)
                .param("user", userId)
                .param("amount", amount)
                .param("defaultLimit", defaults.limitMicros())
                .param("defaultConcurrent", defaults.maxConcurrent())
                .param("defaultRpm", defaults.requestsPerMinute())
                .param("defaultTph", defaults.tokensPerHour())
                .params(now.asParams());
    }

    /** Raises an existing reservation's share of the budget, if it still fits the limit (or regardless). */
    public boolean grow(String userId, long delta, long defaultLimit, LimitWindows now, boolean evenPastTheLimit) {
        return jdbc.sql("update user_budget set"
                                + " spent_micros = " + SPENT_NOW + ","
                                + " period_start = greatest(period_start, :period),"
                                + " reserved_micros = reserved_micros + :delta,"
                                + " updated_at = :now"
                                + " where user_id = :user"
                                + " and (:force or " + SPENT_NOW + " + reserved_micros + :delta"
                                + "     <= coalesce(limit_micros, :defaultLimit))")
                        .param("user", userId)
                        .param("delta", delta)
                        .param("force", evenPastTheLimit)
                        .param("defaultLimit", defaultLimit)
                        .params(now.asParams())
                        .update()
                == 1;
    }

    /** What one settlement books on a user's row: the actual cost, what it gives back, the slots it frees. */
    public record Settled(String userId, long cost, long released, int slots, long tokens) {}

    /**
     * Books each user's actual cost, gives back what was reserved (if the reservation was still ours) and
     * frees the slots: one statement per user, sent together (a JDBC batch), in the given order.
     */
    public void settle(List<Settled> settled, LimitWindows now) {
        if (settled.isEmpty()) {
            return;
        }
        Timestamp period = Timestamp.from(now.period());
        Timestamp hour = Timestamp.from(now.hour());
        Timestamp at = Timestamp.from(now.now());
        statements.batchUpdate(SETTLE, settled, settled.size(), (statement, user) -> {
            statement.setTimestamp(1, period);
            statement.setLong(2, user.cost());
            statement.setTimestamp(3, period);
            statement.setLong(4, user.released());
            statement.setInt(5, user.slots());
            statement.setTimestamp(6, hour);
            statement.setLong(7, user.tokens());
            statement.setLong(8, user.tokens());
            statement.setTimestamp(9, hour);
            statement.setTimestamp(10, at);
            statement.setString(11, user.userId());
        });
    }

    /** Creates the user's row with nothing spent; false if another call created it first. */
    public boolean createIfAbsent(String userId, LimitWindows now) {
        // No duplicate-key error: on PostgreSQL that would abort the transaction this may run in.
        return jdbc.sql("insert into user_budget (user_id, period_start, spent_micros, reserved_micros, in_flight,"
                                + " minute_start, minute_requests, hour_start, hour_tokens, updated_at)"
                                + " values (:user, :period, 0, 0, 0, :minute, 0, :hour, 0, :now)"
                                + " on conflict do nothing")
                        .param("user", userId)
                        .params(now.asParams())
                        .update()
                == 1;
    }

    public Optional<BudgetRow> find(String userId) {
        return jdbc.sql("select * from user_budget where user_id = :user")
                .param("user", userId)
                .query(BudgetRepository::row)
                .optional();
    }

    public void updateSettings(String userId, UserBudgetSettings settings, Instant now) {
        jdbc.sql("update user_budget set limit_micros = :limit, enforcement = :enforcement,"
                        + " max_concurrent = :concurrent, requests_per_minute = :rpm, tokens_per_hour = :tph,"
                        + " updated_at = :now where user_id = :user")
                .param("user", userId)
                .param("limit", settings.limitMicros())
                .param(
                        "enforcement",
                        settings.enforcement() == null
                                ? null
                                : settings.enforcement().name())
                .param("concurrent", settings.maxConcurrent())
                .param("rpm", settings.requestsPerMinute())
                .param("tph", settings.tokensPerHour())
                .param("now", Timestamp.from(now))
                .update();
    }

    public void release(String userId, long amount) {
        jdbc.sql("update user_budget set reserved_micros = reserved_micros - :amount, in_flight = in_flight - 1"
                        + " where user_id = :user")
                .param("user", userId)
                .param("amount", amount)
                .update();
    }

    static BudgetRow row(ResultSet rs, int row) throws SQLException {
        String enforcement = rs.getString("enforcement");
        return new BudgetRow(
                rs.getString("user_id"),
                nullableLong(rs, "limit_micros"),
                enforcement == null ? null : Enforcement.valueOf(enforcement),
                nullableInt(rs, "max_concurrent"),
                nullableInt(rs, "requests_per_minute"),
                nullableLong(rs, "tokens_per_hour"),
                rs.getTimestamp("period_start").toInstant(),
                rs.getLong("spent_micros"),
                rs.getLong("reserved_micros"),
                rs.getInt("in_flight"),
                rs.getTimestamp("minute_start").toInstant(),
                rs.getInt("minute_requests"),
                rs.getTimestamp("hour_start").toInstant(),
                rs.getLong("hour_tokens"));
    }

    private static @Nullable Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    private static @Nullable Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? null : value;
    }

    /** The defaults that apply where a user has no override. */
    public record Limits(long limitMicros, int maxConcurrent, int requestsPerMinute, long tokensPerHour) {}
}
