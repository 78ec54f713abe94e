package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseReturns;
import app.talkide.controlplane.budget.lease.LocalLease;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Each user's spending limit per period, and their fair-use limits, enforced across replicas.
 *
 * <p>A gateway call is admitted before its body is read ({@link #reserveSlot}: a slot, a request of the
 * minute, nothing worth counting of money), then reserves its estimate ({@link #reserveEstimate},
 * {@link CallReservations}): from this replica's lease or guarded UPDATEs of the user's row that check
 * every limit, so concurrent calls can never together pass a limit. While it streams it asks for more, a
 * slice at a time ({@link #extend}); at the end {@link #settle} replaces the reservation with the actual
 * cost and writes the usage record.
 */
@Service
public class UserBudgetService {

    private static final Logger log = LoggerFactory.getLogger(UserBudgetService.class);
    // Every replica sweeps its leases each second, answering revocations: three sweeps' worth of slack.
    private static final Duration REVOKE_WAIT = Duration.ofSeconds(3);

    /**
     * What a call holds from admission until its body is read: nothing worth counting, but a budget
     * without even this left refuses the call before its body is read.
     */
    public static final long ADMISSION_MICROS = 1;

    private final BudgetRepository budgets;
    private final ReservationRepository reservationRows;
    private final BudgetLeases leases;
    private final LeaseReturns returns;
    private final CallReservations reservations;
    private final SettlementWriter settlements;
    private final BudgetProperties properties;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private final MeterRegistry meters;

    UserBudgetService(
            BudgetRepository budgets,
            ReservationRepository reservationRows,
            BudgetLeases leases,
            LeaseReturns returns,
            CallReservations reservations,
            SettlementWriter settlements,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager,
            MeterRegistry meters) {
        this.budgets = budgets;
        this.reservationRows = reservationRows;
        this.leases = leases;
        this.returns = returns;
        this.reservations = reservations;
        this.settlements = settlements;
        this.properties = properties;
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.meters = meters;
    }

    /**
     * Admits a call of {@code userId} before its body is read: holds one of the user's concurrent slots,
     * a request of their minute and {@link #ADMISSION_MICROS} (so a spent budget refuses it here), or
     * says why not. A slow upload therefore holds the user's slot while it arrives, and a user at a
     * limit never makes the gateway read (and hold) a body. {@link #reserveEstimate} then raises the
     * hold to the call's estimate; every path ends in {@link #settle}, which gives the slot back.
     */
    public BudgetDecision reserveSlot(String userId) {
        return preCallCheck(userId, ADMISSION_MICROS);
    }

    /**
     * Reserves {@code estimatedCostMicros} for a call of {@code userId}, or says why not. A new user's
     * row is created on their first call.
     */
    BudgetDecision preCallCheck(String userId, long estimatedCostMicros) {
        BudgetDecision decision = reservations.reserve(userId, estimatedCostMicros);
        if (decision instanceof Denied denied) {
            meters.counter("talkide.budget.denials", "reason", denied.reason().code())
                    .increment();
        }
        return decision;
    }

    /**
     * Raises an admitted call's reservation to {@code estimateMicros} once its body told what the call
     * may cost, within the limit (never as an overrun); empty when granted, else why not. A refused call
     * still holds its admission: settle it.
     */
    public Optional<Denied> reserveEstimate(Reservation reservation, long estimateMicros) {
        long delta = estimateMicros - reservation.amountMicros();
        if (delta <= 0 || reservations.cover(reservation, delta)) {
            return Optional.empty();
        }
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        Denied denied = budgets.find(reservation.userId())
                .map(row -> BudgetDenials.spending(leases.asShown(row), delta, now, properties))
                // Nothing explains it when calls settled in between: worth trying again at once.
                .orElse(null);
        Denied refused = denied != null ? denied : BudgetDenials.busy();
        meters.counter("talkide.budget.denials", "reason", refused.reason().code())
                .increment();
        return Optional.of(refused);
    }

    /**
     * Asks for {@code deltaMicros} more for a running call. Under a soft limit a refused extension is
     * granted once, past the limit, and the reservation is marked as overrun.
     */
    public ExtensionDecision extend(Reservation reservation, long deltaMicros) {
        if (deltaMicros <= 0) {
            return ExtensionDecision.GRANTED;
        }
        LocalLease lease = reservation.lease();
        if (lease != null) {
            return extendFromLease(reservation, lease, deltaMicros);
        }
        if (reservations.growInDatabase(reservation, deltaMicros, false)) {
            return ExtensionDecision.GRANTED;
        }
        // Only a refusal needs the user's enforcement, so the common path never looks it up.
        if (!reservation.overrun()
                && enforcementOf(reservation.userId()) == Enforcement.SOFT
                && reservations.growInDatabase(reservation, deltaMicros, true)) {
            return ExtensionDecision.GRANTED_AS_OVERRUN;
        }
        return ExtensionDecision.REFUSED;
    }

    private ExtensionDecision extendFromLease(Reservation reservation, LocalLease lease, long delta) {
        if (leases.grow(lease, delta, false)) {
            reservation.grew(delta, false);
            return ExtensionDecision.GRANTED;
        }
        if (!reservation.overrun()
                && enforcementOf(reservation.userId()) == Enforcement.SOFT
                && leases.grow(lease, delta, true)) {
            reservation.grew(delta, true);
            return ExtensionDecision.GRANTED_AS_OVERRUN;
        }
        return ExtensionDecision.REFUSED;
    }

    /**
     * Replaces the reservation with the actual cost and writes the call's usage record. Queued for the
     * next group commit ({@link SettlementWriter}); the future completes once it is durable. The
     * reservation's lease, if any, frees the call's slot and the unspent part of its hold at once.
     * If the reservation already expired (the call outlived the reservation TTL without extending),
     * the expiry gave the reserved amount back, and only the cost is booked.
     */
    public CompletableFuture<Void> settle(Reservation reservation, UsageRecord record) {
        LocalLease lease = reservation.lease();
        long shrink = lease == null
                ? 0
                : leases.settled(
                        lease,
                        reservation.amountMicros(),
                        record.costMicros(),
                        record.tokens().uncached());
        return settlements.submit(record, reservation, shrink);
    }

    /** {@link #settle}, waiting until it is durable. */
    void postCallDebit(Reservation reservation, UsageRecord record) {
        await(settle(reservation, record));
    }

    /** Writes the usage record of a call that held no reservation (a denial, a free call); durable on return. */
    public void record(UsageRecord record) {
        await(settlements.submit(record, null, 0));
    }

    private static void await(CompletableFuture<Void> committed) {
        try {
            committed.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** Gives back this replica's idle leases and renews those in use (run every second). */
    void sweepLeases() {
        returns.sweep();
    }

    /** Gives back reservations whose calls died with their replica; returns how many. */
    int expireDeadReservations() {
        Instant now = clock.instant();
        int released = returns.expireDead();
        for (var dead : reservationRows.expired(now, 500)) {
            Boolean done = transactions.execute(status -> {
                if (!reservationRows.deleteIfExpired(dead.id(), now)) {
                    return false;
                }
                budgets.release(dead.userId(), dead.amountMicros());
                return true;
            });
            if (Boolean.TRUE.equals(done)) {
                released++;
            }
        }
        return released;
    }

    /** A user's spend, reservations and limit in the current period. */
    public BudgetStatus status(String userId) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        return budgets.find(userId)
                .map(row -> BudgetStatus.of(leases.asShown(row), now, properties))
                .orElseGet(() -> BudgetStatus.fresh(userId, now, properties));
    }

    /**
     * Sets a user's overrides (null fields follow the defaults); returns the resulting status. The new
     * limits bind every replica once this returns: the user's leases are revoked in the same transaction,
     * this replica's at once and the others' at their next sweep (waited for, up to {@code REVOKE_WAIT}),
     * so no replica admits a call or grants an extension from what it leased under the old limits.
     */
    public BudgetStatus configure(String userId, UserBudgetSettings settings) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        transactions.executeWithoutResult(status -> {
            budgets.createIfAbsent(userId, now);
            budgets.updateSettings(userId, settings, now.now());
            returns.revokeOthers(userId);
        });
        int unanswered = returns.revokeEverywhere(userId, REVOKE_WAIT);
        if (unanswered > 0) {
            log.warn(
                    "{} replica(s) did not give back their budget lease of a user whose limits changed within {}:"
                            + " they are down or cannot reach the database, and their lease expires after its TTL",
                    unanswered,
                    REVOKE_WAIT);
        }
        return status(userId);
    }

    private Enforcement enforcementOf(String userId) {
        return budgets.find(userId)
                .map(BudgetRow::enforcement)
                .filter(e -> e != null)
                .orElse(properties.enforcement());
    }
}
