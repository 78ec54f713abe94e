package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseReturns;
import app.talkide.controlplane.budget.lease.LocalLease;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Where a call's reservation comes from: this replica's lease when it covers the call, else one guarded
 * statement on the user's row (after giving back or recalling leases that hold what the call needs).
 */
@Component
class CallReservations {

    private static final int ATTEMPTS = 3;
    private static final Duration RECALL_WAIT = Duration.ofMillis(2_500);
    private static final Duration RECALL_POLL = Duration.ofMillis(100);

    private final BudgetRepository budgets;
    private final ReservationRepository rows;
    private final BudgetLeases leases;
    private final LeaseReturns returns;
    private final BudgetProperties properties;
    private final Clock clock;
    private final TransactionTemplate transactions;

    CallReservations(
            BudgetRepository budgets,
            ReservationRepository rows,
            BudgetLeases leases,
            LeaseReturns returns,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager) {
        this.budgets = budgets;
        this.rows = rows;
        this.leases = leases;
        this.returns = returns;
        this.properties = properties;
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** Reserves {@code amount} for a call of the user: from this replica's lease, else in the database. */
    BudgetDecision reserve(String userId, long amount) {
        LocalLease lease = leases.take(userId, amount, LimitWindows.at(clock.instant(), properties.period()));
        if (lease != null) {
            return new Reserved(new Reservation(UUID.randomUUID(), userId, amount, lease));
        }
        BudgetDecision decision = decideInDatabase(userId, amount);
        if (spendingRefused(decision) && returns.giveBackIfUnused(userId)) {
            // This replica's own idle lease held what the call needs: it went back, so ask again.
            decision = decideInDatabase(userId, amount);
        }
        if (spendingRefused(decision) && returns.recallOthers(userId, amount)) {
            // Other replicas' leases may hold what the call needs: they give back what no call of theirs
            // holds at their next sweep (every second). A user near their limit waits that long, rather
            // than being refused money the database still has.
            long deadline = System.nanoTime() + RECALL_WAIT.toNanos();
            while (spendingRefused(decision) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(RECALL_POLL.toNanos());
                decision = decideInDatabase(userId, amount);
            }
        }
        return decision;
    }

    /**
     * Raises a call's reservation (its admission hold) by {@code delta} to what the call is estimated to
     * cost, within the limit: from this replica's lease, else the database, after giving back or recalling
     * leases that hold what the call needs, as {@link #reserve} does. False if the budget does not cover it.
     */
    boolean cover(Reservation reservation, long delta) {
        if (grow(reservation, delta)) {
            return true;
        }
        String userId = reservation.userId();
        if (reservation.lease() == null && returns.giveBackIfUnused(userId) && grow(reservation, delta)) {
            return true;
        }
        if (!returns.recallOthers(userId, delta)) {
            return false;
        }
        long deadline = System.nanoTime() + RECALL_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            LockSupport.parkNanos(RECALL_POLL.toNanos());
            if (grow(reservation, delta)) {
                return true;
            }
        }
        return false;
    }

    /** Holds {@code delta} more for the call within the limit, from its lease or on its own row. */
    private boolean grow(Reservation reservation, long delta) {
        LocalLease lease = reservation.lease();
        if (lease != null) {
            if (!leases.grow(lease, delta, false)) {
                return false;
            }
            reservation.grew(delta, false);
            return true;
        }
        return growInDatabase(reservation, delta, false);
    }

    /** Holds {@code delta} more for a call reserved on its own row (past the limit when {@code pastTheLimit}). */
    boolean growInDatabase(Reservation reservation, long delta, boolean pastTheLimit) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        Boolean grown = transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            // Reservation row first, then the budget row: the same lock order as settlement and expiry.
            if (!rows.grow(reservation.id(), delta, expiry(now.now()))
                    || !budgets.grow(reservation.userId(), delta, properties.defaultLimitMicros(), now, pastTheLimit)) {
                status.setRollbackOnly();
                return false;
            }
            return true;
        });
        if (Boolean.TRUE.equals(grown)) {
            reservation.grew(delta, pastTheLimit);
            return true;
        }
        return false;
    }

    private static boolean spendingRefused(BudgetDecision decision) {
        return decision instanceof Denied denied && denied.reason() == DenialReason.SPENDING_LIMIT;
    }

    /** The reservation of one call as a row of its own, checked and counted on the user's row. */
    private BudgetDecision decideInDatabase(String userId, long amount) {
        // Bounded whatever happens in between: a row that keeps vanishing (deleted as it is created) must
        // not hold the call's thread forever.
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
            UUID id = UUID.randomUUID();
            if (reserve(id, userId, amount, now)) {
                return new Reserved(new Reservation(id, userId, amount));
            }
            var row = budgets.find(userId);
            if (row.isEmpty()) {
                budgets.createIfAbsent(userId, now);
                continue;
            }
            Denied denied = BudgetDenials.explain(row.get(), amount, now, properties);
            // Nothing explains the refusal when a slot or window freed up in between: try again.
            if (denied != null) {
                return denied;
            }
        }
        return BudgetDenials.busy();
    }

    private boolean reserve(UUID id, String userId, long amount, LimitWindows now) {
        if (budgets.reservesInOneStatement()) {
            return budgets.reserveWithRecord(id, userId, amount, properties.defaultLimits(), now, expiry(now.now()));
        }
        return Boolean.TRUE.equals(transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            if (!budgets.reserve(userId, amount, properties.defaultLimits(), now)) {
                return false;
            }
            rows.insert(id, userId, amount, now.now(), expiry(now.now()));
            return true;
        }));
    }

    private Instant expiry(Instant now) {
        return now.plus(properties.reservationTtl());
    }
}
