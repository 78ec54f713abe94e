package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.LimitWindows;
import io.micrometer.core.instrument.Counter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * Top-ups ahead of need: a lease that runs dry sends every call arriving meanwhile to the database (the
 * admission read, then the top-up), so a lease running low asks for one here ({@link #want}). The
 * settlement writer carries them in its next commit ({@link #claim}), or commits them alone if no
 * settlement comes within a few milliseconds: under load a top-up ahead costs no commit of its own,
 * and no call waits for it.
 */
public final class LeaseTopUpsAhead {

    private final Queue<LocalLease> wanted = new ConcurrentLinkedQueue<>();
    private final String replica;
    private final LeaseRepository rows;
    private final BudgetRepository budgets;
    private final BudgetProperties properties;
    private final Clock clock;
    private final Counter granted;

    LeaseTopUpsAhead(
            String replica,
            LeaseRepository rows,
            BudgetRepository budgets,
            BudgetProperties properties,
            Clock clock,
            Counter granted) {
        this.replica = replica;
        this.rows = rows;
        this.budgets = budgets;
        this.properties = properties;
        this.clock = clock;
        this.granted = granted;
    }

    /** Asks for a top-up of {@code lease} if it runs low and has not asked already. */
    void wantIfLow(LocalLease lease, LimitWindows now) {
        if (!runningLow(lease, now).nothing() && lease.refilling.compareAndSet(false, true)) {
            wanted.add(lease);
        }
    }

    /** Whether a lease waits for a top-up ahead of need. */
    public boolean any() {
        return !wanted.isEmpty();
    }

    /**
     * The leases waiting for a top-up, each locked for it until {@link TopUp#finish}. A lease locked
     * elsewhere is left alone: a call is topping it up, or it goes back. The caller runs the top-ups in one
     * transaction: {@link TopUp#lockRow} with the other lease rows, {@link TopUp#grant} with the other
     * users' rows (the lock order of every budget transaction).
     */
    public List<TopUp> claim() {
        List<TopUp> claimed = new ArrayList<>();
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        for (LocalLease lease; (lease = wanted.poll()) != null; ) {
            if (lease.changing.tryLock()) {
                claimed.add(
                        new TopUp(lease, now, now.now().plus(properties.lease().ttl())));
            } else {
                lease.refilling.set(false);
            }
        }
        return claimed;
    }

    private LocalLease.Needs runningLow(LocalLease lease, LimitWindows now) {
        return lease.runningLow(
                properties.lease().maxPermits(), properties.lease().maxMicros(), now);
    }

    /** One top-up inside another transaction; its lease stays locked until {@link #finish}. */
    public final class TopUp {
        private final LocalLease lease;
        private final LimitWindows now;
        private final Instant expires;
        private LocalLease.@Nullable Needs needs;
        private LeaseRepository.@Nullable Grant grant;
        private boolean refused;

        private TopUp(LocalLease lease, LimitWindows now, Instant expires) {
            this.lease = lease;
            this.now = now;
            this.expires = expires;
        }

        public String userId() {
            return lease.userId;
        }

        /** Whether it still has anything to do (the lease may have been topped up or closed meanwhile). */
        public boolean wanted() {
            needs = lease.closed() ? null : runningLow(lease, now);
            return needs != null && !needs.nothing();
        }

        public void lockRow() {
            rows.lock(lease.userId, replica, now, expires);
        }

        /** Counts the grant, if the user's row still has it; the lease gets it only after the commit. */
        public void grant() {
            BudgetRow row = needs == null ? null : budgets.find(lease.userId).orElse(null);
            LeaseRepository.Grant sized = row == null ? null : LeaseSizing.grant(row, needs, now, properties);
            if (sized != null
                    && rows.grant(
                            lease.userId,
                            replica,
                            sized,
                            properties.lease().floorMicros(),
                            false,
                            properties.defaultLimits(),
                            now,
                            expires)) {
                grant = sized;
            } else {
                refused = true;
            }
        }

        /** After the transaction: the lease gets what was committed, and may change again. */
        public void finish(boolean committed) {
            try {
                if (committed && grant != null) {
                    lease.granted(grant, now, expires);
                    granted.increment();
                } else if (committed && refused) {
                    lease.refusedAhead();
                }
            } finally {
                lease.changing.unlock();
                lease.refilling.set(false);
            }
        }
    }
}
