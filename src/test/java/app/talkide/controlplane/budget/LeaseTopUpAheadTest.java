package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.MutableClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * A lease in steady use is topped up before it runs dry: calls keep being admitted and reserved from
 * memory, and only the first call of a user (and of a new minute) waits for a top-up. The top-ups ahead
 * ride the settlements' commits: they cost no commit of their own.
 */
// Its own context (small permit grants): closed after the class so its connections go back to PostgreSQL.
// On a clock that stands still: the calls all fall in one minute however slow the machine. (A new minute's
// first call takes a needed top-up whose permits replace the old minute's, one fewer ahead: at load ~20
// the loop crossed a minute and counted 9 top-ups ahead.)
@DirtiesContext
@Import(ClockTestConfiguration.class)
@DatabaseTest
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "talkide.budget.lease.max-permits=40",
            "talkide.budget.fair-use.requests-per-minute=1000000",
            "talkide.budget.fair-use.max-concurrent=100"
        })
class LeaseTopUpAheadTest {

    static final int CALLS = 400;

    @Autowired
    UserBudgetService budgets;

    @Autowired
    MeterRegistry meters;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    MutableClock clock;

    @Autowired
    Commits commits;

    /** Counts the commits of every transaction the application runs. */
    @TestConfiguration
    static class Commits implements TransactionExecutionListener {
        final AtomicLong count = new AtomicLong();

        @Override
        public void afterCommit(TransactionExecution transaction, @Nullable Throwable commitFailure) {
            if (commitFailure == null) {
                count.incrementAndGet();
            }
        }
    }

    @Test
    void callsInSteadyUseNeverFindTheLeaseDry() throws Exception {
        String user = "user-" + UUID.randomUUID();
        double needed = topUps("needed");
        double ahead = topUps("ahead");
        // The user's first call creates their row and reserves in the database; steady use starts after it.
        budgets.settle(reserve(user), record(user)).get(30, TimeUnit.SECONDS);
        long commitsBefore = commits.count.get();
        double neededBefore = topUps("needed");

        for (int i = 1; i < CALLS; i++) {
            budgets.settle(reserve(user), record(user)).get(30, TimeUnit.SECONDS);
        }

        // The user's first lease is the only top-up a call waited for.
        assertThat(topUps("needed") - needed).isEqualTo(1.0);
        // 40 permits a top-up, one ahead of need each time a quarter is left: at least ten for 400 calls.
        assertThat(topUps("ahead") - ahead).isGreaterThanOrEqualTo(CALLS / 40.0);
        // One settlement commit per call (each call waits for its own) and the needed top-up; no more.
        long neededInSteadyUse = (long) (topUps("needed") - neededBefore);
        assertThat(commits.count.get() - commitsBefore).isLessThanOrEqualTo(CALLS - 1 + neededInSteadyUse);
        assertThat(jdbc.sql("select count(*) from usage_record where user_id = :user")
                        .param("user", user)
                        .query(Long.class)
                        .single())
                .isEqualTo(CALLS);
    }

    private double topUps(String when) {
        return meters.get("talkide.budget.lease.topups")
                .tag("when", when)
                .counter()
                .count();
    }

    /** As the gateway reserves: a slot at admission, then the call's estimate once its body is read. */
    private Reservation reserve(String user) {
        BudgetDecision decision = budgets.reserveSlot(user);
        assertThat(decision).isInstanceOf(Reserved.class);
        Reservation reservation = ((Reserved) decision).reservation();
        assertThat(budgets.reserveEstimate(reservation, 1_000)).isEmpty();
        return reservation;
    }

    private UsageRecord record(String user) {
        return CompletedCalls.of(user, 100, clock.instant());
    }
}
