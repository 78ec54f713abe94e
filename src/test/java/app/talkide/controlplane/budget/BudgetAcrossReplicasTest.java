package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseBooks;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.token.TokenTestSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Three application instances on one database, each with its own budget leases: together they never
 * pass a limit, a user near the limit is not refused what the database still has because another
 * replica holds it in lease, a killed replica's lease comes back within its TTL, and once every call
 * settled and idle leases went back nothing stays reserved.
 */
@DatabaseTest
class BudgetAcrossReplicasTest {

    static final long DOLLAR = 1_000_000;
    static final List<ConfigurableApplicationContext> replicas = new ArrayList<>();
    static Map<String, Object> database;

    @TempDir
    static Path dataDir;

    String user;

    @BeforeAll
    static void startThreeReplicas() {
        database = TestDatabase.freshSettings();
        for (int i = 0; i < 3; i++) {
            replicas.add(start("r" + i));
        }
    }

    @AfterAll
    static void stopReplicas() {
        replicas.forEach(ConfigurableApplicationContext::close);
    }

    @BeforeEach
    void setUp() {
        user = "user-" + UUID.randomUUID();
        Instant now = Instant.parse("2026-03-14T10:20:30Z");
        replicas.forEach(replica -> replica.getBean(MutableClock.class).set(now));
    }

    @Test
    void twoHundredConcurrentCallsOnThreeReplicasNeverTogetherPassTheLimit() throws Exception {
        // $1 is below the lease floor: every call reserves in the database, as the last slices always do.
        budgets(0).configure(user, new UserBudgetSettings(DOLLAR, null, 500, 500, null));
        List<Reservation> reserved = reserveConcurrently(200, DOLLAR / 10);
        // The limit fits exactly ten: three replicas neither let an eleventh through nor turn one of the ten away.
        assertThat(reserved).hasSize(10);
        assertThat(budgets(1).status(user).reservedMicros()).isEqualTo(DOLLAR);

        settleAll(reserved, DOLLAR / 10);
        BudgetStatus status = budgets(2).status(user);
        assertThat(status.spentMicros()).isEqualTo(DOLLAR);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        assertThat(budgets(0).preCallCheck(user, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void withLeasesInPlayThreeReplicasStayWithinTheLimitAndLeaveNothingReserved() throws Exception {
        budgets(0).configure(user, new UserBudgetSettings(5 * DOLLAR, null, 500, 500, null));
        List<Reservation> reserved = reserveConcurrently(200, DOLLAR / 10);
        assertThat(reserved).hasSizeLessThanOrEqualTo(50).hasSizeGreaterThan(10);
        assertThat(reserved).anySatisfy(r -> assertThat(r.lease()).isNotNull());
        BudgetStatus held = budgets(0).status(user);
        assertThat(held.spentMicros() + held.reservedMicros()).isLessThanOrEqualTo(5 * DOLLAR);

        settleAll(reserved, DOLLAR / 20);
        // Idle leases go back once no call used them for `idle` (2 s).
        advanceAll(Duration.ofSeconds(3));
        replicas.forEach(replica -> replica.getBean(UserBudgetService.class).sweepLeases());
        BudgetStatus status = budgets(1).status(user);
        assertThat(status.spentMicros()).isEqualTo(reserved.size() * DOLLAR / 20);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        assertThat(leaseRows()).isZero();
    }

    @Test
    void aUserAtTheEdgeIsNotRefusedWhatAnotherReplicasLeaseHoldsUnused() {
        budgets(0).configure(user, new UserBudgetSettings(3 * DOLLAR, null, 50, 500, null));
        // Replica 0 takes a lease: half of what is above the $1 floor, at most $1.
        Reservation first = reserve(0, DOLLAR / 10);
        assertThat(first.lease()).isNotNull();
        // Replica 1 reserves near the limit, call by call in the database.
        Reservation second = reserve(1, DOLLAR * 18 / 10);
        assertThat(second.lease()).isNull();

        // $0.50 more fits what is spent and held by calls ($1.90 of $3), though not next to replica 0's whole
        // $1 lease: replica 0 gives back what none of its calls holds, and the call goes through.
        Reservation third = reserve(1, DOLLAR / 2);
        assertThat(budgets(1).status(user).reservedMicros()).isEqualTo(DOLLAR * 24 / 10);
        // What no longer fits is refused, at once.
        assertThat(budgets(1).preCallCheck(user, DOLLAR * 8 / 10)).isInstanceOf(Denied.class);

        budgets(0).postCallDebit(first, record(DOLLAR / 20));
        budgets(1).postCallDebit(second, record(DOLLAR));
        budgets(1).postCallDebit(third, record(DOLLAR / 4));
        advanceAll(Duration.ofSeconds(3));
        replicas.forEach(replica -> replica.getBean(UserBudgetService.class).sweepLeases());
        BudgetStatus status = budgets(2).status(user);
        assertThat(status.spentMicros()).isEqualTo(DOLLAR * 13 / 10);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
    }

    @Test
    void aKilledReplicasLeaseComesBackAfterItsTtl() {
        budgets(0).configure(user, new UserBudgetSettings(10 * DOLLAR, null, 50, 500, null));
        ConfigurableApplicationContext doomed = start("doomed");
        doomed.getBean(MutableClock.class).set(clock(0).instant());
        Reservation inFlight =
                ((Reserved) doomed.getBean(UserBudgetService.class).preCallCheck(user, DOLLAR / 10)).reservation();
        assertThat(inFlight.lease()).isNotNull();
        doomed.close(); // with a call in flight: its lease stays in the database, as after a crash

        BudgetStatus held = budgets(0).status(user);
        assertThat(held.reservedMicros()).isEqualTo(DOLLAR); // the whole lease: $1, at most
        assertThat(held.callsInFlight()).isPositive();

        advanceAll(Duration.ofSeconds(50));
        budgets(0).expireDeadReservations();
        assertThat(budgets(0).status(user).reservedMicros()).isEqualTo(DOLLAR);

        advanceAll(Duration.ofSeconds(11));
        budgets(1).expireDeadReservations();
        BudgetStatus status = budgets(2).status(user);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        assertThat(leaseRows()).isZero();
    }

    @Test
    void aLimitLoweredToZeroRefusesTheNextCallOnEveryReplicaAndStopsRunningStreamsAtTheirNextSlice() {
        budgets(0).configure(user, new UserBudgetSettings(10 * DOLLAR, null, 50, 500, null));
        // Every replica leases: one call in flight on replica 0, idle leases with money left on 1 and 2.
        Reservation running = reserve(0, DOLLAR / 10);
        for (int replica = 1; replica < 3; replica++) {
            Reservation done = reserve(replica, DOLLAR / 10);
            assertThat(done.lease()).isNotNull();
            budgets(replica).postCallDebit(done, record(DOLLAR / 20));
        }
        assertThat(running.lease()).isNotNull();
        assertThat(leaseRows()).isEqualTo(3);

        budgets(1).configure(user, new UserBudgetSettings(0L, Enforcement.HARD, 50, 500, null));

        for (int replica = 0; replica < 3; replica++) {
            assertThat(budgets(replica).reserveSlot(user)).isInstanceOf(Denied.class);
            BudgetDecision next = budgets(replica).preCallCheck(user, 1);
            assertThat(next).isInstanceOfSatisfying(Denied.class, denied -> {
                assertThat(denied.reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
                assertThat(denied.retryable()).isFalse();
            });
        }
        assertThat(budgets(0).extend(running, DOLLAR / 10)).isEqualTo(ExtensionDecision.REFUSED);
        // Only the running call's hold stays reserved; the idle leases went back when they were revoked.
        assertThat(leaseRows()).isEqualTo(1);
        assertThat(budgets(2).status(user).reservedMicros()).isEqualTo(DOLLAR / 10);

        budgets(0).postCallDebit(running, record(DOLLAR / 20));
        // The revoked lease gave back the call's whole hold as it settled; its slot goes back with the
        // lease at replica 0's next sweep (every second).
        assertThat(budgets(2).status(user).reservedMicros()).isZero();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            BudgetStatus status = budgets(2).status(user);
            assertThat(status.spentMicros()).isEqualTo(DOLLAR * 3 / 20);
            assertThat(status.callsInFlight()).isZero();
            assertThat(leaseRows()).isZero();
        });
    }

    @Test
    void afterALimitIsLoweredConcurrentCallsOnThreeReplicasStayWithinTheNewLimit() throws Exception {
        budgets(0).configure(user, new UserBudgetSettings(10 * DOLLAR, null, 500, 500, null));
        for (int replica = 0; replica < 3; replica++) {
            budgets(replica).postCallDebit(reserve(replica, DOLLAR / 10), record(DOLLAR / 10));
        }
        // $0.30 spent, up to $1 leased on each replica; the limit drops to $1.80.
        budgets(2).configure(user, new UserBudgetSettings(DOLLAR * 18 / 10, null, 500, 500, null));

        List<Reservation> reserved = reserveConcurrently(200, DOLLAR / 10);
        assertThat(reserved).hasSizeBetween(1, 15);
        BudgetStatus held = budgets(0).status(user);
        assertThat(held.spentMicros() + held.reservedMicros()).isLessThanOrEqualTo(DOLLAR * 18 / 10);
        settleAll(reserved, DOLLAR / 10);
        assertThat(budgets(1).preCallCheck(user, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void aLeaseWhoseRevocationWasNotAnsweredKeepsNoMoneyPastTheLimitAtItsNextTopUp() {
        budgets(0).configure(user, new UserBudgetSettings(10 * DOLLAR, null, 50, 500, null));
        // A call in flight keeps the lease in use, so no sweep gives it back meanwhile.
        Reservation running = reserve(0, DOLLAR / 10);
        assertThat(running.lease()).isNotNull();
        // The limit changes behind the lease's back, as when a replica has not yet answered its revocation.
        replicas.getFirst()
                .getBean(JdbcClient.class)
                .sql("update user_budget set limit_micros = 0 where user_id = :user")
                .param("user", user)
                .update();
        // A new minute: the lease has money but no requests left, and a top-up of requests alone must
        // not keep money the limit no longer covers.
        advanceAll(Duration.ofMinutes(1));
        assertThat(budgets(0).preCallCheck(user, 1)).isInstanceOf(Denied.class);
        budgets(0).postCallDebit(running, record(DOLLAR / 10));
    }

    @Test
    void admissionsOfOneUserOnThreeReplicasStopAtTheirConcurrencyLimitAndEveryOneGivesItsSlotBack() throws Exception {
        budgets(0).configure(user, new UserBudgetSettings(10 * DOLLAR, null, 4, 500, null));
        // Thirty calls arrive at once on three replicas; each holds its slot while its body would arrive.
        CountDownLatch start = new CountDownLatch(1);
        List<Future<BudgetDecision>> decisions = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 30; i++) {
                UserBudgetService budgets = budgets(i % replicas.size());
                decisions.add(threads.submit(() -> {
                    if (!start.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("timed out waiting for start");
                    }
                    return budgets.reserveSlot(user);
                }));
            }
            start.countDown();
        }
        List<Reservation> admitted = new ArrayList<>();
        for (Future<BudgetDecision> decision : decisions) {
            if (decision.get() instanceof Reserved granted) {
                admitted.add(granted.reservation());
            } else {
                assertThat(((Denied) decision.get()).reason()).isEqualTo(DenialReason.FAIR_USE);
            }
        }
        assertThat(admitted).isNotEmpty().hasSizeLessThanOrEqualTo(4);
        assertThat(inFlightInTheDatabase()).isLessThanOrEqualTo(4);

        // Each admitted call's body asks for its estimate: $1 fits, the last call's $10.50 does not, and
        // each call, refused or not, gives everything back as it settles.
        Reservation last = admitted.getLast();
        for (Reservation call : admitted.subList(0, admitted.size() - 1)) {
            assertThat(ownerOf(call).reserveEstimate(call, DOLLAR)).isEmpty();
        }
        assertThat(ownerOf(last).reserveEstimate(last, DOLLAR * 21 / 2))
                .hasValueSatisfying(refused -> assertThat(refused.reason()).isEqualTo(DenialReason.SPENDING_LIMIT));
        settleAll(admitted, 0);
        advanceAll(Duration.ofSeconds(3));
        replicas.forEach(replica -> replica.getBean(UserBudgetService.class).sweepLeases());
        BudgetStatus status = budgets(1).status(user);
        assertThat(status.reservedMicros()).isZero();
        assertThat(status.callsInFlight()).isZero();
        assertThat(inFlightInTheDatabase()).isZero();
        assertThat(leaseRows()).isZero();
    }

    private long inFlightInTheDatabase() {
        return replicas.getFirst()
                .getBean(JdbcClient.class)
                .sql("select in_flight from user_budget where user_id = :user")
                .param("user", user)
                .query(Long.class)
                .single();
    }

    private List<Reservation> reserveConcurrently(int calls, long amount) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<BudgetDecision>> decisions = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < calls; i++) {
                UserBudgetService budgets = budgets(i % replicas.size());
                decisions.add(threads.submit(() -> {
                    if (!start.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("timed out waiting for start");
                    }
                    return budgets.preCallCheck(user, amount);
                }));
            }
            start.countDown();
        }
        List<Reservation> reserved = new ArrayList<>();
        for (Future<BudgetDecision> decision : decisions) {
            if (decision.get() instanceof Reserved granted) {
                reserved.add(granted.reservation());
            } else {
                assertThat(((Denied) decision.get()).reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
            }
        }
        return reserved;
    }

    /** Each reservation settles on the replica that made it (only that replica holds its lease). */
    private void settleAll(List<Reservation> reserved, long cost) {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Reservation reservation : reserved) {
                UserBudgetService owner = ownerOf(reservation);
                threads.submit(() -> owner.postCallDebit(reservation, record(cost)));
            }
        }
    }

    private UserBudgetService ownerOf(Reservation reservation) {
        // A reservation's lease belongs to one replica's lease book; per-call reservations settle anywhere.
        for (ConfigurableApplicationContext replica : replicas) {
            if (reservation.lease() == null
                    || LeaseBooks.owns(replica.getBean(BudgetLeases.class), reservation.lease())) {
                return replica.getBean(UserBudgetService.class);
            }
        }
        throw new IllegalStateException("no replica holds the lease of " + reservation);
    }

    private Reservation reserve(int replica, long amount) {
        BudgetDecision decision = budgets(replica).preCallCheck(user, amount);
        assertThat(decision).isInstanceOf(Reserved.class);
        return ((Reserved) decision).reservation();
    }

    private long leaseRows() {
        return replicas.getFirst()
                .getBean(JdbcClient.class)
                .sql("select count(*) from budget_lease where user_id = :user")
                .param("user", user)
                .query(Long.class)
                .single();
    }

    private static UserBudgetService budgets(int replica) {
        return replicas.get(replica).getBean(UserBudgetService.class);
    }

    private static MutableClock clock(int replica) {
        return replicas.get(replica).getBean(MutableClock.class);
    }

    private static void advanceAll(Duration by) {
        replicas.forEach(replica -> replica.getBean(MutableClock.class).advance(by));
    }

    private UsageRecord record(long cost) {
        return CompletedCalls.of(user, cost, clock(0).instant());
    }

    private static ConfigurableApplicationContext start(String name) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.main.web-application-type=none",
                "--talkide.data-dir=" + dataDir.resolve(name),
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                // The last dollar is reserved call by call; above it replicas lease.
                "--talkide.budget.lease.floor-micros=" + DOLLAR));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class, ClockTestConfiguration.class)
                .run(args.toArray(String[]::new));
    }
}
