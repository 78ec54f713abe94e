package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
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
    private final BudgetLeases leases;
    private final LeaseReturns returns;
    private final BudgetProperties properties;
    private final Clock clock;
    private final TransactionTemplate transactions;

    CallReservations(
            BudgetRepository budgets,
            BudgetLeases leases,
            LeaseReturns returns,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager) {
        this.budgets = budgets;
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

    private static boolean spendingRefused(BudgetDecision decision) {
        return decision instanceof Denied denied && denied.reason() == DenialReason.SPENDING_LIMIT;
    }

    /** The reservation of one call as a row of its own, checked and counted on the user's row. */
    private BudgetDecision decideInDatabase(String userId, long amount) {
        for (int attempt = 1; ; attempt++) {
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
            if (denied != null || attempt >= ATTEMPTS) {
                return denied != null ? denied : BudgetDenials.busy();
            }
        }
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
            budgets.insertReservation(id, userId, amount, now.now(), expiry(now.now()));
            return true;
        }));
    }

    private Instant expiry(Instant now) {
        return now.plus(properties.reservationTtl());
    }
}
