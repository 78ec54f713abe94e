package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.support.ApplicationOnTestClockTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Reservations, extensions, settlement, expiry and fair use, on the real database (H2 and PostgreSQL). */
@DatabaseTest
@ApplicationOnTestClockTest
class UserBudgetServiceTest {

    static final long DOLLAR = 1_000_000;

    @Autowired
    UserBudgetService budgets;

    @Autowired
    MutableClock clock;

    String user;

    @BeforeEach
    void setUp() {
        user = "user-" + UUID.randomUUID();
        clock.set(Instant.parse("2026-03-14T10:20:30Z"));
    }

    @Test
    void twoHundredConcurrentCallsNeverTogetherPassTheLimit() throws Exception {
        budgets.configure(user, new UserBudgetSettings(DOLLAR, null, 500, 500, null));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<BudgetDecision>> calls = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 200; i++) {
                calls.add(threads.submit(() -> {
                    if (!start.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("timed out waiting for start");
                    }
                    return budgets.preCallCheck(user, DOLLAR / 10);
                }));
            }
            start.countDown();
        }
        List<Reservation> reserved = new ArrayList<>();
        for (Future<BudgetDecision> call : calls) {
            if (call.get() instanceof Reserved granted) {
                reserved.add(granted.reservation());
            } else {
                assertThat(((Denied) call.get()).reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
            }
        }
        // The limit fits exactly ten: concurrency neither lets an eleventh through nor turns one of the ten away.
        assertThat(reserved).hasSize(10);
        assertThat(budgets.status(user).reservedMicros()).isEqualTo(DOLLAR);

        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            reserved.forEach(
                    reservation -> threads.submit(() -> budgets.postCallDebit(reservation, record(DOLLAR / 10))));
        }
        BudgetStatus status = budgets.status(user);
        assertThat(status.spentMicros()).isEqualTo(DOLLAR);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        assertThat(budgets.preCallCheck(user, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void aHardLimitRefusesTheSliceThatWouldPassIt() {
        budgets.configure(user, new UserBudgetSettings(DOLLAR, Enforcement.HARD, null, null, null));
        Reservation reservation = reserve(DOLLAR / 4);
        assertThat(budgets.extend(reservation, DOLLAR / 4)).isEqualTo(ExtensionDecision.GRANTED);
        assertThat(budgets.extend(reservation, DOLLAR / 2)).isEqualTo(ExtensionDecision.GRANTED);
        assertThat(budgets.extend(reservation, 1)).isEqualTo(ExtensionDecision.REFUSED);
        assertThat(reservation.amountMicros()).isEqualTo(DOLLAR);
        assertThat(budgets.status(user).reservedMicros()).isEqualTo(DOLLAR);
    }

    @Test
    void aSoftLimitGrantsOneSlicePastItAndRecordsTheOverrun() {
        budgets.configure(user, new UserBudgetSettings(DOLLAR, Enforcement.SOFT, null, null, null));
        Reservation reservation = reserve(DOLLAR * 9 / 10);
        assertThat(budgets.extend(reservation, DOLLAR / 5)).isEqualTo(ExtensionDecision.GRANTED_AS_OVERRUN);
        assertThat(budgets.extend(reservation, DOLLAR / 5)).isEqualTo(ExtensionDecision.REFUSED);

        budgets.postCallDebit(reservation, record(DOLLAR * 11 / 10));

        BudgetStatus status = budgets.status(user);
        assertThat(status.spentMicros()).isEqualTo(DOLLAR * 11 / 10);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.remainingMicros()).isZero();
    }

    @Test
    void aReservationWhoseCallDiedIsGivenBackAfterItsTtl() {
        Reservation dead = reserve(DOLLAR / 2);
        clock.advance(Duration.ofMinutes(29));
        budgets.expireDeadReservations();
        assertThat(budgets.status(user).reservedMicros()).isEqualTo(DOLLAR / 2);

        clock.advance(Duration.ofMinutes(2));
        budgets.expireDeadReservations(); // (or the scheduled expiry got there first: same effect)
        assertThat(budgets.status(user).reservedMicros()).isZero();
        assertThat(budgets.status(user).callsInFlight()).isZero();

        // Should the call settle after all, its cost is booked and nothing is given back twice.
        budgets.postCallDebit(dead, record(1_000));
        BudgetStatus status = budgets.status(user);
        assertThat(status.spentMicros()).isEqualTo(1_000);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
    }

    @Test
    void anExtensionKeepsALongStreamsReservationAlive() {
        Reservation alive = reserve(1_000);
        clock.advance(Duration.ofMinutes(20));
        budgets.extend(alive, 1_000);
        clock.advance(Duration.ofMinutes(20));
        budgets.expireDeadReservations();
        assertThat(budgets.status(user).reservedMicros()).isEqualTo(2_000);
    }

    @Test
    void spendResetsWhenThePeriodTurnsAndLateSettlementsCountInTheNewOne() {
        budgets.configure(user, new UserBudgetSettings(DOLLAR, null, null, null, null));
        budgets.postCallDebit(reserve(DOLLAR / 2), record(DOLLAR));
        assertThat(budgets.preCallCheck(user, 1)).isInstanceOf(Denied.class);
        Reservation lateOne = reserve(0);

        clock.set(Instant.parse("2026-04-01T00:00:00Z"));
        BudgetStatus april = budgets.status(user);
        assertThat(april.spentMicros()).isZero();
        assertThat(april.periodStart()).isEqualTo(Instant.parse("2026-04-01T00:00:00Z"));
        assertThat(april.periodEnd()).isEqualTo(Instant.parse("2026-05-01T00:00:00Z"));

        budgets.postCallDebit(lateOne, record(3_000));
        assertThat(budgets.status(user).spentMicros()).isEqualTo(3_000);
        assertThat(budgets.preCallCheck(user, DOLLAR / 2)).isInstanceOf(Reserved.class);
    }

    @Test
    void aSpentLimitSaysWhenItResetsAndNotToRetry() {
        budgets.configure(user, new UserBudgetSettings(0L, null, null, null, null));
        Denied denied = (Denied) budgets.preCallCheck(user, 10);
        assertThat(denied.reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
        assertThat(denied.retryable()).isFalse();
        assertThat(denied.retryAfter())
                .isEqualTo(Duration.between(clock.instant(), Instant.parse("2026-04-01T00:00:00Z")));
        assertThat(denied.message()).contains("Spending limit reached").contains("2026-04-01T00:00:00Z");
    }

    @Test
    void concurrentCallsOverTheFairUseLimitAreRefused() {
        budgets.configure(user, new UserBudgetSettings(null, null, 2, null, null));
        Reservation first = reserve(1);
        reserve(1);
        Denied third = (Denied) budgets.preCallCheck(user, 1);
        assertThat(third.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(third.retryAfter()).isNull();

        budgets.postCallDebit(first, record(1));
        assertThat(budgets.preCallCheck(user, 1)).isInstanceOf(Reserved.class);
    }

    @Test
    void requestsPerMinuteCountInCalendarMinutes() {
        budgets.configure(user, new UserBudgetSettings(null, null, null, 3, null));
        for (int i = 0; i < 3; i++) {
            budgets.postCallDebit(reserve(1), record(1));
        }
        Denied denied = (Denied) budgets.preCallCheck(user, 1);
        assertThat(denied.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(30));

        clock.advance(Duration.ofSeconds(30));
        assertThat(budgets.preCallCheck(user, 1)).isInstanceOf(Reserved.class);
    }

    @Test
    void tokensPerHourCountUncachedTokensUntilTheHourTurns() {
        budgets.configure(user, new UserBudgetSettings(null, null, null, null, 1_000L));
        budgets.postCallDebit(reserve(1), record(1, new TokenCounts(400, 100, 0, 1_000_000, 500)));
        Denied denied = (Denied) budgets.preCallCheck(user, 1);
        assertThat(denied.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(denied.message()).contains("tokens per hour");

        clock.set(Instant.parse("2026-03-14T11:00:00Z"));
        assertThat(budgets.preCallCheck(user, 1)).isInstanceOf(Reserved.class);
    }

    private Reservation reserve(long amount) {
        BudgetDecision decision = budgets.preCallCheck(user, amount);
        assertThat(decision).isInstanceOf(Reserved.class);
        return ((Reserved) decision).reservation();
    }

    private UsageRecord record(long cost) {
        return CompletedCalls.of(user, cost, clock.instant());
    }

    private UsageRecord record(long cost, TokenCounts tokens) {
        return CompletedCalls.of(user, cost, tokens, clock.instant());
    }
}
