package app.talkide.controlplane.budget;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
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
class BudgetLeases implements DisposableBean {

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
    private volatile Instant lastRenewal;

    BudgetLeases(
            LeaseRepository rows,
            BudgetRepository budgets,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager) {
        this.rows = rows;
        this.budgets = budgets;
        this.properties = properties;
        this.settings = properties.lease();
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.lastRenewal = clock.instant();
    }

    String replica() {
        return replica;
    }

    /** Holds {@code amount}, a slot and a request from this replica's lease; null: reserve per call instead. */
    @Nullable
    LocalLease take(String userId, long amount, Windows now) {
        if (!settings.enabled()) {
            return null;
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            LocalLease lease = leases.computeIfAbsent(userId, user -> new LocalLease(user, now.now()));
            if (lease.take(amount, now)) {
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
    BudgetRow asShown(BudgetRow row) {
        LocalLease lease = leases.get(row.userId());
        return lease == null ? row : lease.withoutUnused(row);
    }

    /** Whether {@code lease} is this replica's current lease of its user. */
    boolean owns(LocalLease lease) {
        return leases.get(lease.userId) == lease;
    }

    /** Whether a call of the user would be admitted from memory now (so the admission check needs no read). */
    boolean admits(String userId, Windows now) {
        LocalLease lease = leases.get(userId);
        if (lease == null || lease.closed()) {
            return false;
        }
        LocalLease.Needs needs = lease.needs(1, now);
        return !needs.slot() && !needs.permit();
    }

    /**
     * Holds {@code delta} more for a running call of the lease: from what the lease has free, else from a
     * top-up, else exactly {@code delta} taken from the budget (its last slices, or past the limit when
     * {@code pastTheLimit}). False when the budget refuses.
     */
    boolean grow(LocalLease lease, long delta, boolean pastTheLimit) {
        Windows now = Windows.at(clock.instant(), properties.period());
        if (!pastTheLimit
                && (lease.grow(delta, now.now()) || (topUpMoney(lease, delta, now) && lease.grow(delta, now.now())))) {
            return true;
        }
        lease.changing.lock();
        try {
            var exact = new LeaseRepository.Grant(delta, 0, 0, 0, Long.MAX_VALUE);
            Instant expires = now.now().plus(settings.ttl());
            if (lease.closed() || !apply(lease.userId, exact, 0, pastTheLimit, now, expires)) {
                return false;
            }
            lease.grantedAndHeld(delta, expires);
            return true;
        } finally {
            lease.changing.unlock();
        }
    }

    private boolean topUpMoney(LocalLease lease, long delta, Windows now) {
        lease.changing.lock();
        try {
            LocalLease.Needs needs = lease.needs(delta, now);
            if (lease.closed() || needs.money() == 0) {
                return !lease.closed();
            }
            return topUpLocked(lease, new LocalLease.Needs(needs.money(), false, false, needs.amount()), now);
        } finally {
            lease.changing.unlock();
        }
    }

    private boolean topUp(LocalLease lease, long amount, Windows now) {
        lease.changing.lock();
        try {
            if (lease.closed()) {
                // Given back (idle) or lost since it was looked up: the next attempt starts a new one.
                leases.remove(lease.userId, lease);
                return true;
            }
            LocalLease.Needs needs = lease.needs(amount, now);
            return needs.nothing() || topUpLocked(lease, needs, now);
        } finally {
            lease.changing.unlock();
        }
    }

    private boolean topUpLocked(LocalLease lease, LocalLease.Needs needs, Windows now) {
        BudgetRow row = budgets.find(lease.userId).orElse(null);
        LeaseRepository.Grant grant = row == null ? null : LeaseSizing.grant(row, needs, now, properties);
        Instant expires = now.now().plus(settings.ttl());
        if (grant == null || !apply(lease.userId, grant, settings.floorMicros(), false, now, expires)) {
            return false;
        }
        lease.granted(grant, now, expires);
        return true;
    }

    private boolean apply(
            String userId, LeaseRepository.Grant grant, long floor, boolean force, Windows now, Instant expires) {
        return Boolean.TRUE.equals(transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            rows.lock(userId, replica, now, expires);
            if (!rows.grant(userId, replica, grant, floor, force, defaults(), now, expires)) {
                status.setRollbackOnly();
                return false;
            }
            return true;
        }));
    }

    /** Settles a call of a lease in memory; returns what the lease shrinks by (see {@link LocalLease#settle}). */
    long settled(LocalLease lease, long hold, long cost, long tokens) {
        return lease.settle(hold, cost, tokens, clock.instant());
    }

    /** In a settlement's transaction: takes what calls spent off this replica's lease row. */
    boolean shrink(String userId, long micros) {
        return micros == 0 || rows.shrink(userId, replica, micros);
    }

    /** Gives back the user's lease at once if no call of this replica uses it; true if one went back. */
    boolean giveBackIfUnused(String userId) {
        LocalLease lease = leases.get(userId);
        if (lease == null) {
            return false;
        }
        lease.changing.lock();
        try {
            Instant now = clock.instant();
            int unused = lease.closeIfIdle(now, now);
            if (unused < 0) {
                return false;
            }
            leases.remove(userId, lease);
            Instant minute = lease.minute();
            return Boolean.TRUE.equals(transactions.execute(status -> rows.giveBack(userId, replica, unused, minute)));
        } finally {
            lease.changing.unlock();
        }
    }

    /**
     * After a call was refused for its spending limit on this replica: asks the other replicas holding
     * a lease of the user to give back what they do not use. True if any was asked.
     */
    boolean recallOthers(String userId, long amount) {
        if (!settings.enabled()) {
            return false;
        }
        BudgetRow row = budgets.find(userId).orElse(null);
        if (row == null) {
            return false;
        }
        Windows now = Windows.at(clock.instant(), properties.period());
        long limit = row.limitMicros() != null ? row.limitMicros() : properties.defaultLimitMicros();
        // Only when the call would fit without them: a spent budget must not wait for recalls.
        long others = rows.heldByOthers(userId, replica);
        return others > 0
                && row.spentIn(now) + row.reservedMicros() - others + amount <= limit
                && rows.recall(userId, replica) > 0;
    }

    /** Gives back idle leases, answers recalls and renews the rest; every replica runs it every second. */
    void sweep() {
        Instant now = clock.instant();
        answerRecalls(now);
        List<String> open = new ArrayList<>();
        for (LocalLease lease : leases.values()) {
            if (!lease.changing.tryLock()) {
                open.add(lease.userId);
                continue;
            }
            try {
                int unused = lease.closeIfIdle(now.minus(settings.idle()), now);
                if (unused >= 0) {
                    leases.remove(lease.userId, lease);
                    Instant minute = lease.minute();
                    transactions.executeWithoutResult(status -> rows.giveBack(lease.userId, replica, unused, minute));
                } else if (!lease.closed()) {
                    open.add(lease.userId);
                }
            } catch (RuntimeException e) {
                log.warn("Could not give back an idle budget lease (it expires on its own): {}", e.toString());
            } finally {
                lease.changing.unlock();
            }
        }
        if (!open.isEmpty() && !now.isBefore(lastRenewal.plus(settings.ttl().dividedBy(3)))) {
            lastRenewal = now;
            Instant expires = now.plus(settings.ttl());
            List<String> lost = rows.renew(replica, open, expires);
            for (String user : open) {
                LocalLease lease = leases.get(user);
                if (lease == null) {
                    continue;
                }
                if (lost.contains(user)) {
                    leases.remove(user, lease);
                    lease.lost();
                } else {
                    lease.renewed(expires);
                }
            }
        }
    }

    private void answerRecalls(Instant now) {
        for (String user : rows.recalled(replica)) {
            LocalLease lease = leases.get(user);
            if (lease == null) {
                continue; // returned meanwhile, or a row from before a top-up failed: the expiry handles it
            }
            lease.changing.lock();
            try {
                Instant minute = lease.minute();
                long[] unused = lease.shrinkToHeld(now.truncatedTo(java.time.temporal.ChronoUnit.MINUTES));
                transactions.executeWithoutResult(status ->
                        rows.giveBackPart(user, replica, unused[0], (int) unused[1], (int) unused[2], minute));
            } catch (RuntimeException e) {
                log.warn("Could not answer a budget lease recall: {}", e.toString());
            } finally {
                lease.changing.unlock();
            }
        }
    }

    /** Gives back leases of replicas that died (not renewed within the TTL); returns how many. */
    int expireDead() {
        Instant now = clock.instant();
        int released = 0;
        for (var dead : rows.expired(now, 500)) {
            if (Boolean.TRUE.equals(transactions.execute(status -> rows.expireIfStill(dead, now)))) {
                released++;
            }
        }
        return released;
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

    private BudgetRepository.Limits defaults() {
        BudgetProperties.FairUse fairUse = properties.fairUse();
        return new BudgetRepository.Limits(
                properties.defaultLimitMicros(),
                fairUse.maxConcurrent(),
                fairUse.requestsPerMinute(),
                fairUse.tokensPerHour());
    }
}
