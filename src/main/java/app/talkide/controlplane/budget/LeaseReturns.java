package app.talkide.controlplane.budget;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * How leases go back to the budget: an idle lease after {@code idle}, part of one when another replica
 * recalls it for a user near the limit, and a dead replica's after {@code ttl}; those in use are renewed.
 */
@Component
class LeaseReturns {

    private static final Logger log = LoggerFactory.getLogger(LeaseReturns.class);

    private final BudgetLeases leases;
    private final LeaseRepository rows;
    private final BudgetRepository budgets;
    private final BudgetProperties properties;
    private final BudgetProperties.Lease settings;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private volatile Instant lastRenewal;

    LeaseReturns(
            BudgetLeases leases,
            LeaseRepository rows,
            BudgetRepository budgets,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager) {
        this.leases = leases;
        this.rows = rows;
        this.budgets = budgets;
        this.properties = properties;
        this.settings = properties.lease();
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.lastRenewal = clock.instant();
    }

    /** Gives back the user's lease at once if no call of this replica uses it; true if one went back. */
    boolean giveBackIfUnused(String userId) {
        LocalLease lease = leases.current(userId);
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
            leases.forget(lease);
            Instant minute = lease.minute();
            return Boolean.TRUE.equals(
                    transactions.execute(status -> rows.giveBack(userId, leases.replica(), unused, minute)));
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
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        long limit = row.limitMicros() != null ? row.limitMicros() : properties.defaultLimitMicros();
        // Only when the call would fit without them: a spent budget must not wait for recalls.
        long others = rows.heldByOthers(userId, leases.replica());
        return others > 0
                && row.spentIn(now) + row.reservedMicros() - others + amount <= limit
                && rows.recall(userId, leases.replica()) > 0;
    }

    /** Gives back idle leases, answers recalls and renews the rest; every replica runs it every second. */
    void sweep() {
        Instant now = clock.instant();
        answerRecalls(now);
        List<String> open = new ArrayList<>();
        for (LocalLease lease : leases.all()) {
            if (!lease.changing.tryLock()) {
                open.add(lease.userId);
                continue;
            }
            try {
                int unused = lease.closeIfIdle(now.minus(settings.idle()), now);
                if (unused >= 0) {
                    leases.forget(lease);
                    Instant minute = lease.minute();
                    transactions.executeWithoutResult(
                            status -> rows.giveBack(lease.userId, leases.replica(), unused, minute));
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
            List<String> lost = rows.renew(leases.replica(), open, expires);
            for (String user : open) {
                LocalLease lease = leases.current(user);
                if (lease == null) {
                    continue;
                }
                if (lost.contains(user)) {
                    leases.forget(lease);
                    lease.lost();
                } else {
                    lease.renewed(expires);
                }
            }
        }
    }

    private void answerRecalls(Instant now) {
        if (leases.all().isEmpty()) {
            return; // nothing here to recall: no read every second on a replica that holds no lease
        }
        for (String user : rows.recalled(leases.replica())) {
            LocalLease lease = leases.current(user);
            if (lease == null) {
                continue; // returned meanwhile, or a row from before a top-up failed: the expiry handles it
            }
            lease.changing.lock();
            try {
                Instant minute = lease.minute();
                long[] unused = lease.shrinkToHeld(now.truncatedTo(ChronoUnit.MINUTES));
                transactions.executeWithoutResult(status ->
                        rows.giveBackPart(user, leases.replica(), unused[0], (int) unused[1], (int) unused[2], minute));
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
}
