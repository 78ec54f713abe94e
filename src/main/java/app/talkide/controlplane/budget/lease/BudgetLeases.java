package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.LimitWindows;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * This replica's leases, one per user it serves. A call is admitted from memory when the user's lease
 * covers its estimate, a slot and a request of this minute; otherwise the lease is topped up in one
 * transaction whose guarded update re-checks every limit (and leaves the budget's last
 * {@code floor-micros} to per-call reservations). When even that cannot cover the call, the caller
 * reserves it in the database on its own, as without leases.
 */
@Component
public class BudgetLeases implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(BudgetLeases.class);

    /** Identifies this replica's lease rows; a new one per start, so a restarted pod never adopts old rows. */
    private final String replica = UUID.randomUUID().toString();

    private final Map<String, LocalLease> leases = new ConcurrentHashMap<>();
    private final LeaseRepository rows;
    private final BudgetRepository budgets;
    private final BudgetProperties properties;
    private final BudgetProperties.Lease settings;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private final Counter topUpsNeeded;
    private final LeaseTopUpsAhead ahead;

    BudgetLeases(
            LeaseRepository rows,
            BudgetRepository budgets,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager,
            MeterRegistry meters) {
        this.rows = rows;
        this.budgets = budgets;
        this.properties = properties;
        this.settings = properties.lease();
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.ahead = new LeaseTopUpsAhead(replica, rows, budgets, properties, clock, topUps(meters, "ahead"));
        this.topUpsNeeded = topUps(meters, "needed");
    }

    private static Counter topUps(MeterRegistry meters, String when) {
        return Counter.builder("talkide.budget.lease.topups")
                .description(
                        "Lease top-ups: ahead of need (no call waited) or needed by a call the lease could not cover")
                .tag("when", when)
                .register(meters);
    }

    /** Identifies this replica's lease rows (a settlement in one statement shrinks them by it). */
    public String replica() {
        return replica;
    }

    /** Holds {@code amount}, a slot and a request from this replica's lease; null: reserve per call instead. */
    @Nullable
    public LocalLease take(String userId, long amount, LimitWindows now) {
        if (!settings.enabled()) {
            return null;
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            LocalLease lease = leases.computeIfAbsent(userId, user -> new LocalLease(user, now.now()));
            if (lease.take(amount, now)) {
                ahead.wantIfLow(lease, now);
                return lease;
            }
            if (!topUp(lease, amount, now)) {
                return null;
            }
        }
        return null;
    }

    /**
     * The user's row as they should see it: without what this replica's lease holds for calls not made
     * yet. (Other replicas' unused leases still show as reserved until they go back, at most
     * {@code idle} after their last call.)
     */
    public BudgetRow asShown(BudgetRow row) {
        LocalLease lease = leases.get(row.userId());
        return lease == null ? row : lease.withoutUnused(row);
    }

    /** Whether {@code lease} is this replica's current lease of its user. */
    boolean owns(LocalLease lease) {
        return leases.get(lease.userId) == lease;
    }

    /**
     * Holds {@code delta} more for a running call of the lease: from what the lease has free, else from a
     * top-up, else exactly {@code delta} taken from the budget (its last slices, or past the limit when
     * {@code pastTheLimit}). False when the budget refuses.
     */
    public boolean grow(LocalLease lease, long delta, boolean pastTheLimit) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        if (!pastTheLimit
                && (lease.grow(delta, now.now()) || (topUpMoney(lease, delta, now) && lease.grow(delta, now.now())))) {
            return true;
        }
        lease.changing.lock();
        try {
            if (lease.closed()) {
                return false;
            }
            // What the lease has free counts; only the rest is taken from the budget, exactly.
            long free = lease.holdFree(delta, now.now());
            long rest = delta - free;
            var exact = new LeaseRepository.Grant(rest, 0, 0, 0, Long.MAX_VALUE);
            Instant expires = now.now().plus(settings.ttl());
            boolean granted = false;
            try {
                granted = rest == 0 || apply(lease.userId, exact, 0, pastTheLimit, now, expires);
            } finally {
                if (!granted) {
                    lease.unhold(free);
                }
            }
            if (granted && rest > 0) {
                lease.grantedAndHeld(rest, expires);
            }
            return granted;
        } finally {
            lease.changing.unlock();
        }
    }

    /** Top-ups ahead of need, which the settlement writer carries in its commits. */
    public LeaseTopUpsAhead topUpsAhead() {
        return ahead;
    }

    private boolean topUpMoney(LocalLease lease, long delta, LimitWindows now) {
        lease.changing.lock();
        try {
            LocalLease.Needs needs = lease.needs(delta, now);
            if (lease.closed() || lease.revoked() || needs.money() == 0) {
                return !lease.closed() && !lease.revoked();
            }
            return topUpLocked(lease, new LocalLease.Needs(needs.money(), false, false, needs.amount()), now);
        } finally {
            lease.changing.unlock();
        }
    }

    private boolean topUp(LocalLease lease, long amount, LimitWindows now) {
        lease.changing.lock();
        try {
            if (lease.closed()) {
                // Given back (idle) or lost since it was looked up: the next attempt starts a new one.
                leases.remove(lease.userId, lease);
                return true;
            }
            if (lease.revoked()) {
                // Until it goes back (once its calls settled), the user's calls reserve in the database.
                return false;
            }
            LocalLease.Needs needs = lease.needs(amount, now);
            return needs.nothing() || topUpLocked(lease, needs, now);
        } finally {
            lease.changing.unlock();
        }
    }

    private boolean topUpLocked(LocalLease lease, LocalLease.Needs needs, LimitWindows now) {
        Instant expires = now.now().plus(settings.ttl());
        // The read that sizes the grant shares the grant's transaction: one commit per top-up, not two.
        LeaseRepository.Grant granted = transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            BudgetRow row = budgets.find(lease.userId).orElse(null);
            LeaseRepository.Grant grant = row == null ? null : LeaseSizing.grant(row, needs, now, properties);
            if (grant == null) {
                return null;
            }
            rows.lock(lease.userId, replica, now, expires);
            var limits = properties.defaultLimits();
            if (!rows.grant(lease.userId, replica, grant, settings.floorMicros(), false, limits, now, expires)) {
                status.setRollbackOnly();
                return null;
            }
            return grant;
        });
        if (granted == null) {
            return false;
        }
        lease.granted(granted, now, expires);
        topUpsNeeded.increment();
        return true;
    }

    private boolean apply(
            String userId, LeaseRepository.Grant grant, long floor, boolean force, LimitWindows now, Instant expires) {
        return Boolean.TRUE.equals(transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            rows.lock(userId, replica, now, expires);
            if (!rows.grant(userId, replica, grant, floor, force, properties.defaultLimits(), now, expires)) {
                status.setRollbackOnly();
                return false;
            }
            return true;
        }));
    }

    /** Settles a call of a lease in memory; returns what the lease shrinks by (see {@link LocalLease#settle}). */
    public long settled(LocalLease lease, long hold, long cost, long tokens) {
        return lease.settle(hold, cost, tokens, clock.instant());
    }

    /** A lease of {@code userId} shrinking by {@code micros}: what its settled calls spent. */
    public record Shrink(String userId, long micros) {}

    /**
     * In a settlement's transaction: takes what calls spent off this replica's lease rows, in one round
     * trip; for each, whether the lease was still there.
     */
    public boolean[] shrink(List<Shrink> shrinks) {
        return shrinks.isEmpty() ? new boolean[0] : rows.shrink(shrinks, replica);
    }

    /** This replica's lease of the user, if it holds one. */
    @Nullable
    LocalLease current(String userId) {
        return leases.get(userId);
    }

    /** Every lease this replica holds. */
    Collection<LocalLease> all() {
        return leases.values();
    }

    /** Drops {@code lease} from this replica's leases (it went back or was lost). */
    void forget(LocalLease lease) {
        leases.remove(lease.userId, lease);
    }

    /** On shutdown, idle leases go back at once; those still in use expire after their TTL. */
    @Override
    public void destroy() {
        Instant now = clock.instant();
        for (LocalLease lease : leases.values()) {
            int unused = lease.closeIfIdle(now, now);
            if (unused >= 0) {
                try {
                    transactions.executeWithoutResult(
                            status -> rows.giveBack(lease.userId, replica, unused, lease.minute()));
                } catch (RuntimeException e) {
                    log.debug("Lease not given back on shutdown; it expires on its own: {}", e.toString());
                }
            }
        }
        leases.clear();
    }
}
