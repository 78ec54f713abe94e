package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Each user's spending limit per period, and their fair-use limits, enforced across replicas.
 *
 * <p>A call first reserves an estimate ({@link #preCallCheck}): one UPDATE of the user's row that
 * checks every limit and counts the reservation, so concurrent calls can never together pass a limit.
 * While it streams it asks for more, a slice at a time ({@link #extend}); at the end
 * {@link #postCallDebit} replaces the reservation with the actual cost and writes the usage record.
 */
@Service
public class UserBudgetService {

    private static final int ATTEMPTS = 3;

    private final BudgetRepository budgets;
    private final UsageRecordRepository usage;
    private final BudgetProperties properties;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private final MeterRegistry meters;

    UserBudgetService(
            BudgetRepository budgets,
            UsageRecordRepository usage,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager,
            MeterRegistry meters) {
        this.budgets = budgets;
        this.usage = usage;
        this.properties = properties;
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.meters = meters;
    }

    /**
     * Reserves {@code estimatedCostMicros} for a call of {@code userId}, or says why not. A new user's
     * row is created on their first call.
     */
    public BudgetDecision preCallCheck(String userId, long estimatedCostMicros) {
        BudgetDecision decision = decide(userId, estimatedCostMicros);
        if (decision instanceof Denied denied) {
            meters.counter("talkide.budget.denials", "reason", denied.reason().code())
                    .increment();
        }
        return decision;
    }

    /**
     * Whether a call of {@code userId} could be admitted at all right now, asked before its body is read:
     * a user over a fair-use or spending limit must not make the gateway read (and hold) a large body
     * first. One read, nothing reserved; {@link #preCallCheck} still decides with the call's estimate.
     */
    public Optional<Denied> admissionCheck(String userId) {
        Optional<Denied> denied = budgets.find(userId)
                .map(row ->
                        BudgetDenials.explain(row, 1, Windows.at(clock.instant(), properties.period()), properties));
        denied.ifPresent(refused -> meters.counter(
                        "talkide.budget.denials", "reason", refused.reason().code())
                .increment());
        return denied;
    }

    private BudgetDecision decide(String userId, long amount) {
        for (int attempt = 1; ; attempt++) {
            Windows now = Windows.at(clock.instant(), properties.period());
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

    private boolean reserve(UUID id, String userId, long amount, Windows now) {
        if (budgets.reservesInOneStatement()) {
            return budgets.reserveWithRecord(id, userId, amount, defaults(), now, expiry(now.now()));
        }
        return Boolean.TRUE.equals(transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            if (!budgets.reserve(userId, amount, defaults(), now)) {
                return false;
            }
            budgets.insertReservation(id, userId, amount, now.now(), expiry(now.now()));
            return true;
        }));
    }

    /**
     * Asks for {@code deltaMicros} more for a running call. Under a soft limit a refused extension is
     * granted once, past the limit, and the reservation is marked as overrun.
     */
    public Extension extend(Reservation reservation, long deltaMicros) {
        if (deltaMicros <= 0) {
            return Extension.GRANTED;
        }
        if (grow(reservation, deltaMicros, false)) {
            return Extension.GRANTED;
        }
        // Only a refusal needs the user's enforcement, so the common path never looks it up.
        if (!reservation.overrun()
                && enforcementOf(reservation.userId()) == Enforcement.SOFT
                && grow(reservation, deltaMicros, true)) {
            return Extension.GRANTED_AS_OVERRUN;
        }
        return Extension.REFUSED;
    }

    private boolean grow(Reservation reservation, long delta, boolean pastTheLimit) {
        Windows now = Windows.at(clock.instant(), properties.period());
        Boolean grown = transactions.execute(status -> {
            budgets.commitWithoutWaitingForDisk();
            // Reservation row first, then the budget row: the same lock order as settlement and expiry.
            if (!budgets.growReservation(reservation.id(), delta, expiry(now.now()))
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

    /**
     * Replaces the reservation with the actual cost and writes the call's usage record, in one
     * transaction. If the reservation already expired (the call outlived the reservation TTL without
     * extending), the expiry gave the reserved amount back, and only the cost is booked. Durable when
     * it returns; the user's row is released before the disk flush, so a worker's next call (which
     * often follows at once) does not wait for it.
     */
    public void postCallDebit(Reservation reservation, UsageRecord record) {
        Windows now = Windows.at(clock.instant(), properties.period());
        transactions.executeWithoutResult(status -> {
            budgets.commitWithoutWaitingForDisk();
            if (!reservation.overrun()) {
                // Before the user's row is locked: the row is held only from its update to the commit,
                // which is where the user's next reservation, often already waiting, queues.
                usage.insert(record, 0);
            }
            boolean ours = budgets.deleteReservation(reservation.id());
            budgets.settle(
                    reservation.userId(),
                    record.costMicros(),
                    ours ? reservation.amountMicros() : 0,
                    ours ? 1 : 0,
                    record.tokens().uncached(),
                    now);
            if (reservation.overrun()) {
                usage.insert(record, overrunAfterSettling(reservation.userId(), now));
            }
        });
        budgets.awaitDurability();
    }

    private long overrunAfterSettling(String userId, Windows now) {
        return budgets.find(userId)
                .map(row -> Math.max(
                        0,
                        row.spentIn(now)
                                - (row.limitMicros() != null ? row.limitMicros() : properties.defaultLimitMicros())))
                .orElse(0L);
    }

    /** Writes the usage record of a call that held no reservation: a denial, a free call. */
    public void record(UsageRecord record) {
        usage.insert(record, 0);
    }

    /** Gives back reservations whose calls died with their replica; returns how many. */
    public int expireDeadReservations() {
        Instant now = clock.instant();
        int released = 0;
        for (var dead : budgets.expired(now, 500)) {
            Boolean done = transactions.execute(status -> {
                if (!budgets.deleteIfExpired(dead.id(), now)) {
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
        Windows now = Windows.at(clock.instant(), properties.period());
        return budgets.find(userId)
                .map(row -> BudgetStatus.of(row, now, properties))
                .orElseGet(() -> BudgetStatus.fresh(userId, now, properties));
    }

    /** Sets a user's overrides (null fields follow the defaults); returns the resulting status. */
    public BudgetStatus configure(String userId, UserBudgetSettings settings) {
        Windows now = Windows.at(clock.instant(), properties.period());
        budgets.createIfAbsent(userId, now);
        budgets.updateSettings(userId, settings, now.now());
        return status(userId);
    }

    private Enforcement enforcementOf(String userId) {
        return budgets.find(userId)
                .map(BudgetRow::enforcement)
                .filter(e -> e != null)
                .orElse(properties.enforcement());
    }

    private BudgetRepository.Limits defaults() {
        BudgetProperties.FairUse fairUse = properties.fairUse();
        return new BudgetRepository.Limits(
                properties.defaultLimitMicros(),
                fairUse.maxConcurrent(),
                fairUse.requestsPerMinute(),
                fairUse.tokensPerHour());
    }

    private Instant expiry(Instant now) {
        return now.plus(properties.reservationTtl());
    }

    static Duration until(Instant now, Instant then) {
        return Duration.between(now, then).isNegative() ? Duration.ZERO : Duration.between(now, then);
    }
}
