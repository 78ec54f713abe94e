package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.LimitWindows;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
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
public class LeaseReturns {

    private static final Logger log = LoggerFactory.getLogger(LeaseReturns.class);
    private static final Duration REVOKE_POLL = Duration.ofMillis(50);

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
    public boolean giveBackIfUnused(String userId) {
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
    public boolean recallOthers(String userId, long amount) {
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
    public void sweep() {
        Instant now = clock.instant();
        answerRecalls(now);
        List<String> open = new ArrayList<>();
        for (LocalLease lease : leases.all()) {
            if (!lease.changing.tryLock()) {
                open.add(lease.userId);
                continue;
            }
            try {
                // A revoked lease goes back as soon as no call uses it; it admits nothing meanwhile.
                int unused = lease.closeIfIdle(lease.revoked() ? now : now.minus(settings.idle()), now);
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
            try {
                revokeOwn(user, now);
            } catch (RuntimeException e) {
                log.warn("Could not answer a budget lease recall: {}", e.toString());
            }
        }
    }

    /**
     * Revokes this replica's lease of the user: gone at once if no call uses it, else shrunk to what its
     * calls hold and admitting nothing more from memory until it goes back. Answers a recall too.
     */
    void revokeOwn(String userId, Instant now) {
        LocalLease lease = leases.current(userId);
        if (lease == null) {
            // Already gone from memory (given back, or a top-up that failed): only the flag is left to clear.
            transactions.executeWithoutResult(
                    status -> rows.giveBackPart(userId, leases.replica(), 0, 0, 0, Instant.EPOCH));
            return;
        }
        lease.changing.lock();
        try {
            Instant minute = lease.minute();
            int idle = lease.closeIfIdle(now, now);
            if (idle >= 0) {
                leases.forget(lease);
                transactions.executeWithoutResult(status -> rows.giveBack(userId, leases.replica(), idle, minute));
                return;
            }
            long[] unused = lease.revoke(now.truncatedTo(ChronoUnit.MINUTES));
            transactions.executeWithoutResult(status ->
                    rows.giveBackPart(userId, leases.replica(), unused[0], (int) unused[1], (int) unused[2], minute));
        } finally {
            lease.changing.unlock();
        }
    }

    /** In the transaction that changes the user's settings: marks every other replica's lease revoked. */
    public void revokeOthers(String userId) {
        rows.revokeOthers(userId, leases.replica());
    }

    /**
     * After the user's settings changed (and {@link #revokeOthers} committed with them): revokes this replica's lease at once and every other replica's
     * at its next sweep, waiting up to {@code wait} for them to answer. Returns how many did not (their
     * replica is down, or cut off from the database: it cannot top up, and its lease expires after its TTL).
     */
    public int revokeEverywhere(String userId, Duration wait) {
        if (!settings.enabled()) {
            return 0;
        }
        revokeOwn(userId, clock.instant());
        long deadline = System.nanoTime() + wait.toNanos();
        int unanswered = rows.unanswered(userId, leases.replica());
        while (unanswered > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(REVOKE_POLL.toNanos());
            unanswered = rows.unanswered(userId, leases.replica());
        }
        return unanswered;
    }

    /** Gives back leases of replicas that died (not renewed within the TTL); returns how many. */
    public int expireDead() {
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
