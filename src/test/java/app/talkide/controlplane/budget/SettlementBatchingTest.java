package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.support.ApplicationWithoutWebTest;
import app.talkide.controlplane.support.DatabaseTest;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Group commit without a wait: a settlement commits at once, however many calls are still in flight, and
 * the settlements that queue while a commit runs go together in the next one, every user's row right.
 */
@DatabaseTest
@ApplicationWithoutWebTest
class SettlementBatchingTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Autowired
    UserBudgetService budgets;

    @Autowired
    MeterRegistry meters;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    DataSource dataSource;

    @Autowired
    Clock clock;

    @Test
    void aSettlementCommitsAtOnceWhileOtherCallsAreStillInFlight() throws Exception {
        String user = newUser();
        Reservation first = reserve(user);
        Reservation stillRunning = reserve(user);

        budgets.settle(first, record(user, 100)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(usageRecords(user)).isEqualTo(1);

        budgets.settle(stillRunning, record(user, 100)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(usageRecords(user)).isEqualTo(2);
    }

    @Test
    void settlementsQueuedWhileACommitRunsGoTogetherInTheNextOne() throws Exception {
        String held = newUser();
        List<String> others = List.of(newUser(), newUser(), newUser());
        Reservation blocked = reserve(held);
        Reservation heldAgain = reserve(held);
        List<Reservation> queued = others.stream().map(this::reserve).toList();
        long batches = batches().count();
        double settled = batches().totalAmount();

        CompletableFuture<Void> first;
        List<CompletableFuture<Void>> next;
        try (Connection connection = dataSource.getConnection()) {
            // Another transaction holds the first user's row: the commit carrying the first settlement waits.
            lockBudgetRow(connection, held);
            first = budgets.settle(blocked, record(held, 1_000));
            assertThat(first).failsWithin(Duration.ofMillis(300)).withThrowableOfType(TimeoutException.class);
            next = new ArrayList<>();
            for (int i = 0; i < others.size(); i++) {
                next.add(budgets.settle(queued.get(i), record(others.get(i), 100 * (i + 1))));
            }
            next.add(budgets.settle(heldAgain, record(held, 5_000)));
            connection.rollback();
        }
        first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        CompletableFuture.allOf(next.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        // Five settlements in at most two commits: the blocked one, then everything that queued behind it.
        assertThat(batches().count() - batches).isBetween(1L, 2L);
        assertThat(batches().totalAmount() - settled).isEqualTo(5.0);
        assertThat(budgets.status(held).spentMicros()).isEqualTo(6_000);
        for (int i = 0; i < others.size(); i++) {
            assertThat(budgets.status(others.get(i)).spentMicros()).isEqualTo(100L * (i + 1));
            assertThat(usageRecords(others.get(i))).isEqualTo(1);
        }
        assertThat(usageRecords(held)).isEqualTo(2);
    }

    private static void lockBudgetRow(Connection connection, String user) throws Exception {
        connection.setAutoCommit(false);
        try (PreparedStatement lock =
                connection.prepareStatement("select spent_micros from user_budget where user_id = ? for update")) {
            lock.setString(1, user);
            lock.executeQuery().close();
        }
    }

    private DistributionSummary batches() {
        return meters.get("talkide.budget.settlement.batch").summary();
    }

    private long usageRecords(String user) {
        return jdbc.sql("select count(*) from usage_record where user_id = :user")
                .param("user", user)
                .query(Long.class)
                .single();
    }

    private static String newUser() {
        return "user-" + UUID.randomUUID();
    }

    private Reservation reserve(String user) {
        BudgetDecision decision = budgets.preCallCheck(user, 1_000);
        assertThat(decision).isInstanceOf(Reserved.class);
        return ((Reserved) decision).reservation();
    }

    private UsageRecord record(String user, long costMicros) {
        return CompletedCalls.of(user, costMicros, clock.instant());
    }
}
