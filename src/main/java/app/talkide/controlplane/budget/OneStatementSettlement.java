package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseTopUpsAhead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * PostgreSQL's settlement commit for the usual batch: calls of one user admitted from this replica's
 * lease (and calls of anyone that held nothing), with no top-up riding along. The usage records, the
 * lease shrink and the user's update go in one statement (data-modifying {@code with}, a column array per
 * field), committed on its own: one round trip to the database instead of four ({@link
 * SettlementCommit}'s batches and the commit), so a call's last byte comes sooner below saturation
 * (docs/performance.md). Books exactly what {@link SettlementCommit} books for such a batch; anything else
 * (several users, reservations on users' rows, overruns, top-ups, H2) goes through it.
 *
 * <p>Locks: one lease row, then one user row, as in every budget transaction (the user's update joins
 * what the lease update returned, so the lease row is updated before the user row is). With several
 * users the statement would lock their rows in whatever order its join takes (a hash join takes the
 * table's), not in user order, and could deadlock with another replica's settlement: hence one user.
 */
@Repository
class OneStatementSettlement {

    private static final String SETTLE = """
            with recorded as (
                insert into usage_record (id, request_id, tenant, env, conversation_id, user_id, endpoint, model,
                    model_family, input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens,
                    output_tokens, cost_micros, overrun_micros, outcome, upstream_status, started_at,
                    duration_micros, first_byte_micros)
                select id, request_id, tenant, env, conversation_id, user_id, endpoint, model, model_family,
                    input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens, output_tokens,
                    cost_micros, 0, outcome, upstream_status, started_at, duration_micros, first_byte_micros
                from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::uuid[], ?::text[], ?::text[], ?::text[],
                    ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[],
                    ?::text[], ?::integer[], ?::timestamptz[], ?::bigint[], ?::bigint[])
                    as r(id, request_id, tenant, env, conversation_id, user_id, endpoint, model, model_family,
                    input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens, output_tokens,
                    cost_micros, outcome, upstream_status, started_at, duration_micros, first_byte_micros)
            ), shrunk as (
                update budget_lease l set amount_micros = l.amount_micros - s.shrink
                from unnest(?::text[], ?::bigint[]) as s(user_id, shrink)
                where l.user_id = s.user_id and l.replica_id = ? and s.shrink <> 0
                returning l.user_id, s.shrink
            )
            update user_budget b set
                spent_micros = (case when b.period_start >= ? then b.spent_micros else 0 end) + u.cost,
                period_start = greatest(b.period_start, ?),
                reserved_micros = b.reserved_micros - coalesce(shrunk.shrink, 0),
                hour_tokens = case when b.hour_start >= ? then b.hour_tokens + u.tokens else u.tokens end,
                hour_start = greatest(b.hour_start, ?),
                updated_at = ?
            from unnest(?::text[], ?::bigint[], ?::bigint[]) as u(user_id, cost, tokens)
                left join shrunk on shrunk.user_id = u.user_id
            where b.user_id = u.user_id
            """;

    private final JdbcTemplate statements;
    private final BudgetLeases leases;
    private final BudgetProperties properties;
    private final Clock clock;
    private final boolean available;

    OneStatementSettlement(
            JdbcTemplate statements,
            BudgetRepository budgets,
            BudgetLeases leases,
            BudgetProperties properties,
            Clock clock) {
        this.statements = statements;
        this.leases = leases;
        this.properties = properties;
        this.clock = clock;
        this.available = budgets.settlesInOneStatement();
    }

    /**
     * Whether this batch can be settled here: PostgreSQL, no top-up, and every call either held nothing
     * or was admitted from a lease of one and the same user.
     */
    boolean covers(List<SettlementWriter.Pending> batch, List<LeaseTopUpsAhead.TopUp> topUps) {
        if (!available || !topUps.isEmpty()) {
            return false;
        }
        @Nullable String user = null;
        for (SettlementWriter.Pending pending : batch) {
            Reservation reservation = pending.reservation();
            if (reservation == null) {
                continue;
            }
            if (reservation.lease() == null || reservation.overrun()) {
                return false;
            }
            if (user != null && !user.equals(reservation.userId())) {
                return false;
            }
            user = reservation.userId();
        }
        return true;
    }

    /** Settles a batch it {@link #covers} in one statement, outside any transaction: it commits on its own. */
    void apply(List<SettlementWriter.Pending> batch) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        Map<String, UserSettlement> users = new TreeMap<>();
        for (SettlementWriter.Pending pending : batch) {
            if (pending.reservation() != null) {
                users.computeIfAbsent(pending.record().userId(), user -> new UserSettlement())
                        .fromLease(pending.record(), pending.leaseShrink());
            }
        }
        statements.update(SETTLE, statement -> {
            int next = UsageColumns.bind(statement, batch);
            next = bindLeases(statement, next, users);
            bindUsers(statement, next, users, now);
        });
    }

    private int bindLeases(PreparedStatement statement, int at, Map<String, UserSettlement> users) throws SQLException {
        Connection connection = statement.getConnection();
        Object[] ids = users.keySet().toArray();
        Object[] shrinks = users.values().stream().map(user -> user.shrink).toArray();
        statement.setArray(at, connection.createArrayOf("text", ids));
        statement.setArray(at + 1, connection.createArrayOf("bigint", shrinks));
        statement.setString(at + 2, leases.replica());
        return at + 3;
    }

    private static void bindUsers(
            PreparedStatement statement, int at, Map<String, UserSettlement> users, LimitWindows now)
            throws SQLException {
        Connection connection = statement.getConnection();
        Timestamp period = Timestamp.from(now.period());
        Timestamp hour = Timestamp.from(now.hour());
        statement.setTimestamp(at, period);
        statement.setTimestamp(at + 1, period);
        statement.setTimestamp(at + 2, hour);
        statement.setTimestamp(at + 3, hour);
        statement.setTimestamp(at + 4, Timestamp.from(now.now()));
        statement.setArray(
                at + 5, connection.createArrayOf("text", users.keySet().toArray()));
        statement.setArray(
                at + 6,
                connection.createArrayOf(
                        "bigint", users.values().stream().map(user -> user.cost).toArray()));
        statement.setArray(
                at + 7,
                connection.createArrayOf(
                        "bigint",
                        users.values().stream().map(user -> user.tokens).toArray()));
    }

    /** The usage records as one array per column, in the order of the statement's {@code unnest}. */
    private static final class UsageColumns {

        static int bind(PreparedStatement statement, List<SettlementWriter.Pending> batch) throws SQLException {
            int n = batch.size();
            Object[][] columns = new Object[20][n];
            for (int i = 0; i < n; i++) {
                UsageRecord record = batch.get(i).record();
                UsageRecord.TokenCounts tokens = record.tokens();
                columns[0][i] = UUID.randomUUID();
                columns[1][i] = record.requestId();
                columns[2][i] = record.tenant();
                columns[3][i] = record.env();
                columns[4][i] = record.conversationId();
                columns[5][i] = record.userId();
                columns[6][i] = record.endpoint();
                columns[7][i] = UsageRecordRepository.truncate(record.model(), 128);
                columns[8][i] = record.modelFamily();
                columns[9][i] = tokens.input();
                columns[10][i] = tokens.cacheWrite5m();
                columns[11][i] = tokens.cacheWrite1h();
                columns[12][i] = tokens.cacheRead();
                columns[13][i] = tokens.output();
                columns[14][i] = record.costMicros();
                columns[15][i] = record.outcome().code();
                columns[16][i] = record.upstreamStatus();
                // ISO-8601 with its zone: PostgreSQL reads it as the same instant whatever the session's zone.
                columns[17][i] = record.startedAt().toString();
                columns[18][i] = record.duration().toNanos() / 1_000;
                columns[19][i] =
                        record.firstByte() == null ? null : record.firstByte().toNanos() / 1_000;
            }
            String[] types = {
                "uuid",
                "text",
                "text",
                "text",
                "uuid",
                "text",
                "text",
                "text",
                "text",
                "bigint",
                "bigint",
                "bigint",
                "bigint",
                "bigint",
                "bigint",
                "text",
                "integer",
                "timestamptz",
                "bigint",
                "bigint"
            };
            Connection connection = statement.getConnection();
            for (int c = 0; c < columns.length; c++) {
                statement.setArray(c + 1, connection.createArrayOf(types[c], columns[c]));
            }
            return columns.length + 1;
        }
    }
}
