package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.support.DatabaseTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Settlement batches fill while other calls are in flight: a settlement waits (up to
 * {@code settlement-wait}) for the settlements of calls still running, and one commit carries them all;
 * durable on completion as always. Nothing else in flight: it commits at once.
 */
// Its own context (a long settlement wait): closed after the class so its connections go back to PostgreSQL.
@DirtiesContext
@DatabaseTest
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"talkide.budget.settlement-wait=5s", "talkide.budget.fair-use.max-concurrent=100"})
class SettlementBatchingTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Autowired
    UserBudgetService budgets;

    @Autowired
    MeterRegistry meters;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    Clock clock;

    String user;

    @BeforeEach
    void setUp() throws Exception {
        user = "user-" + UUID.randomUUID();
        // Settlements arriving close together: the writer expects more soon, so a batch may wait for them.
        List<Reservation> burst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            burst.add(reserve());
        }
        List<CompletableFuture<Void>> settled = new ArrayList<>();
        burst.forEach(reservation -> settled.add(budgets.settle(reservation, record())));
        CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aSettlementWaitsForTheCallStillInFlightAndOneCommitCarriesBoth() throws Exception {
        Reservation first = reserve();
        Reservation second = reserve();
        long batches = batches();

        CompletableFuture<Void> firstSettled = budgets.settle(first, record());
        assertThat(firstSettled).failsWithin(Duration.ofMillis(1_000)).withThrowableOfType(TimeoutException.class);
        assertThat(usageRecords()).isEqualTo(20);

        CompletableFuture<Void> secondSettled = budgets.settle(second, record());
        firstSettled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        secondSettled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(usageRecords()).isEqualTo(22);
        assertThat(batches()).isEqualTo(batches + 1);
    }

    @Test
    void aCallCountedOnArrivalIsWaitedForBeforeItHasReserved() throws Exception {
        Reservation first = reserve();
        try (SettlementExpected arriving = budgets.expectSettlement()) {
            long batches = batches();
            CompletableFuture<Void> firstSettled = budgets.settle(first, record());
            assertThat(firstSettled).failsWithin(Duration.ofMillis(1_000)).withThrowableOfType(TimeoutException.class);

            BudgetDecision decision = budgets.preCallCheck(user, 1_000, arriving);
            assertThat(decision).isInstanceOf(Reserved.class);
            CompletableFuture<Void> secondSettled = budgets.settle(((Reserved) decision).reservation(), record());
            firstSettled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            secondSettled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(batches()).isEqualTo(batches + 1);
            assertThat(usageRecords()).isEqualTo(22);
        }
    }

    @Test
    void aCallCountedOnArrivalThatEndsWithoutReservingStopsTheWait() throws Exception {
        Reservation only = reserve();
        SettlementExpected arriving = budgets.expectSettlement();
        CompletableFuture<Void> settled = budgets.settle(only, record());
        assertThat(settled).failsWithin(Duration.ofMillis(500)).withThrowableOfType(TimeoutException.class);

        long closed = System.nanoTime();
        arriving.close();
        settled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // Well before the 5 s bound: the writer noticed nobody else is coming.
        assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(Duration.ofMillis(2_500));
    }

    @Test
    void aSettlementWaitsNoLongerThanTheBound() throws Exception {
        Reservation first = reserve();
        Reservation stillRunning = reserve();
        long start = System.nanoTime();
        budgets.settle(first, record()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(4_500));
        assertThat(usageRecords()).isEqualTo(21);
        budgets.settle(stillRunning, record()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void withNoOtherCallInFlightASettlementCommitsAtOnce() throws Exception {
        Reservation only = reserve();
        long start = System.nanoTime();
        budgets.settle(only, record()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(4_000));
        assertThat(usageRecords()).isEqualTo(21);
    }

    private long batches() {
        return meters.get("talkide.budget.settlement.batch").summary().count();
    }

    private long usageRecords() {
        return jdbc.sql("select count(*) from usage_record where user_id = :user")
                .param("user", user)
                .query(Long.class)
                .single();
    }

    private Reservation reserve() {
        BudgetDecision decision = budgets.preCallCheck(user, 1_000);
        assertThat(decision).isInstanceOf(Reserved.class);
        return ((Reserved) decision).reservation();
    }

    private UsageRecord record() {
        return CompletedCalls.of(user, 100, clock.instant());
    }
}
