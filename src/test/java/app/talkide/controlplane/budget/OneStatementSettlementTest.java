package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseBooks;
import app.talkide.controlplane.support.ApplicationWithoutWebTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.PostgresOnly;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * PostgreSQL's settlement in one statement books exactly what the transactional {@link SettlementCommit}
 * books for the same calls: the user's row, this replica's lease row and the usage records, field by
 * field, also when a lease is gone before its calls settle; and it takes only one user's calls at a time.
 */
@DatabaseTest
@PostgresOnly
@ApplicationWithoutWebTest
class OneStatementSettlementTest {

    static final long LEASED = 10_000;

    @Autowired
    OneStatementSettlement oneStatement;

    @Autowired
    BudgetRepository budgets;

    @Autowired
    ReservationRepository reservations;

    @Autowired
    UsageRecordRepository usage;

    @Autowired
    BudgetLeases leases;

    @Autowired
    BudgetProperties properties;

    @Autowired
    Clock clock;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    JdbcClient jdbc;

    @Test
    void booksWhatTheTransactionalCommitBooks() {
        Instant now = clock.instant();
        List<String> viaOne = List.of(leasedUser(now), leasedUser(now));
        List<String> viaCommit = List.of(leasedUser(now), leasedUser(now));

        // One user per statement (what it covers); the transaction takes both users at once.
        viaOne.forEach(user -> oneStatement.apply(calls(List.of(user), now)));
        inTransaction(calls(viaCommit, now));

        for (int i = 0; i < viaOne.size(); i++) {
            assertThat(userRow(viaOne.get(i))).isEqualTo(userRow(viaCommit.get(i)));
            assertThat(leaseRow(viaOne.get(i))).isEqualTo(leaseRow(viaCommit.get(i)));
            assertThat(usageRows(viaOne.get(i))).isEqualTo(usageRows(viaCommit.get(i)));
        }
        // Calls of 300 + 200 spent, their lease shrank by 450 (its share), the denial added a record only.
        assertThat(userRow(viaOne.getFirst())).containsEntry("spent_micros", 500L);
        assertThat(userRow(viaOne.getFirst())).containsEntry("reserved_micros", LEASED - 450);
        assertThat(leaseRow(viaOne.getFirst())).isEqualTo(LEASED - 450);
        assertThat(usageRows(viaOne.getFirst())).hasSize(3);
    }

    @Test
    void aLeaseGoneBeforeItsCallsSettleGivesNothingBack() {
        Instant now = clock.instant();
        String viaOne = leasedUser(now);
        String viaCommit = leasedUser(now);
        dropLease(viaOne);
        dropLease(viaCommit);

        oneStatement.apply(calls(List.of(viaOne), now));
        inTransaction(calls(List.of(viaCommit), now));

        assertThat(userRow(viaOne)).isEqualTo(userRow(viaCommit));
        assertThat(userRow(viaOne)).containsEntry("spent_micros", 500L);
        assertThat(userRow(viaOne)).containsEntry("reserved_micros", LEASED);
    }

    @Test
    void coversOnlyCallsOfOneUsersLeaseOrHoldingNothing() {
        Instant now = clock.instant();
        String user = "user-" + UUID.randomUUID();
        var leased = leased(user, 100, 100, now);
        var leasedAgain = leased(user, 50, 50, now);
        var otherUsers = leased("user-" + UUID.randomUUID(), 100, 100, now);
        var nothingHeld = pending(CompletedCalls.of("user-" + UUID.randomUUID(), 0, now), null, 0);
        var heldOnTheRow = pending(CompletedCalls.of(user, 100, now), new Reservation(UUID.randomUUID(), user, 100), 0);

        assertThat(oneStatement.covers(List.of(leased, nothingHeld, leasedAgain), List.of()))
                .isTrue();
        assertThat(oneStatement.covers(List.of(leased, heldOnTheRow), List.of()))
                .isFalse();
        // Several users' rows would be locked in the join's order, not in user order.
        assertThat(oneStatement.covers(List.of(leased, otherUsers), List.of())).isFalse();
    }

    /** Per user: two calls of its lease (300 and 200, shrinking it by 300 and 150) and a denied call. */
    private List<SettlementWriter.Pending> calls(List<String> users, Instant now) {
        return users.stream()
                .flatMap(user -> List.of(
                        leased(user, 300, 300, now),
                        leased(user, 200, 150, now),
                        pending(CompletedCalls.of(user, 0, TokenCounts.NONE, now), null, 0))
                        .stream())
                .toList();
    }

    private SettlementWriter.Pending leased(String user, long cost, long shrink, Instant now) {
        var lease = LeaseBooks.holding(user, cost, LimitWindows.at(now, properties.period()));
        return pending(
                CompletedCalls.of(user, cost, now), new Reservation(UUID.randomUUID(), user, cost, lease), shrink);
    }

    private static SettlementWriter.Pending pending(UsageRecord record, Reservation reservation, long shrink) {
        return new SettlementWriter.Pending(record, reservation, shrink, new CompletableFuture<>());
    }

    private void inTransaction(List<SettlementWriter.Pending> batch) {
        SettlementCommit commit = new SettlementCommit(budgets, reservations, usage, leases, properties, clock);
        new TransactionTemplate(transactionManager).executeWithoutResult(status -> commit.apply(batch, List.of()));
    }

    /** A user whose row counts {@link #LEASED} as reserved, all of it held by this replica's lease. */
    private String leasedUser(Instant now) {
        String user = "user-" + UUID.randomUUID();
        budgets.createIfAbsent(user, LimitWindows.at(now, properties.period()));
        jdbc.sql("update user_budget set reserved_micros = :leased where user_id = :user")
                .param("leased", LEASED)
                .param("user", user)
                .update();
        jdbc.sql("insert into budget_lease (user_id, replica_id, amount_micros, slots, minute_start, permits,"
                        + " expires_at) values (:user, :replica, :leased, 1, :now, 0, :expires)")
                .param("user", user)
                .param("replica", leases.replica())
                .param("leased", LEASED)
                .param("now", Timestamp.from(now))
                .param("expires", Timestamp.from(now.plusSeconds(60)))
                .update();
        return user;
    }

    private void dropLease(String user) {
        jdbc.sql("delete from budget_lease where user_id = :user")
                .param("user", user)
                .update();
    }

    private Map<String, Object> userRow(String user) {
        return jdbc.sql("select spent_micros, reserved_micros, in_flight, period_start, hour_tokens, hour_start"
                        + " from user_budget where user_id = :user")
                .param("user", user)
                .query()
                .singleRow();
    }

    private Long leaseRow(String user) {
        return jdbc.sql("select amount_micros from budget_lease where user_id = :user")
                .param("user", user)
                .query(Long.class)
                .single();
    }

    /** Every field of the user's usage records but their ids and conversations (fresh per call). */
    private List<Map<String, Object>> usageRows(String user) {
        return jdbc.sql("select request_id, tenant, env, endpoint, model, model_family, input_tokens,"
                        + " cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens, output_tokens,"
                        + " cost_micros, overrun_micros, outcome, upstream_status, started_at, duration_micros,"
                        + " first_byte_micros from usage_record where user_id = :user order by cost_micros")
                .param("user", user)
                .query()
                .listOfRows();
    }
}
