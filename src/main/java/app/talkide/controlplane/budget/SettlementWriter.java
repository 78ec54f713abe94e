package app.talkide.controlplane.budget;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Group commit of settlements: one thread writes every settlement that queued while the previous
 * transaction committed (usage records, reservation deletes, lease shrinks, one update per user) in one
 * durable transaction. Under load a commit carries many calls; alone, a call waits for one commit as it
 * did before. While other calls are in flight (counted from their arrival, {@link SettlementExpected})
 * and settlements arrive faster than {@code settlement-wait}, a batch waits up to that long for more
 * before it commits (fewer commits, a later last byte). Lock order as everywhere in budgets: reservation rows, lease rows, then users (sorted, so
 * two replicas' writers never wait on each other in a cycle).
 */
@Component
class SettlementWriter implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(SettlementWriter.class);
    private static final int MAX_BATCH = 256;
    private static final long SHUTDOWN_WAIT_MILLIS = 15_000;
    private static final long FILL_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long IDLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * @param reservation null for a call that held none (a denial, {@code count_tokens})
     * @param leaseShrink for a call reserved from a lease: what the lease shrinks by (its share of the cost)
     */
    record Pending(
            UsageRecord record,
            @Nullable Reservation reservation,
            long leaseShrink,
            CompletableFuture<Void> done,
            long queuedAt) {}

    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final BudgetRepository budgets;
    private final UsageRecordRepository usage;
    private final BudgetLeases leases;
    private final BudgetProperties properties;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private final DistributionSummary batchSizes;
    private final Thread writer;
    private final long maxWaitNanos;
    // Calls holding a reservation whose settlement is not queued yet: only they can join a waiting batch.
    private final AtomicInteger unqueued = new AtomicInteger();
    private final AtomicLong lastQueuedAt = new AtomicLong(System.nanoTime());
    // Mean time between two settlements (moving average); a batch stops waiting when the next is unlikely.
    private volatile long meanGapNanos;
    private volatile boolean stopping;

    SettlementWriter(
            BudgetRepository budgets,
            UsageRecordRepository usage,
            BudgetLeases leases,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager,
            MeterRegistry meters) {
        this.budgets = budgets;
        this.usage = usage;
        this.leases = leases;
        this.properties = properties;
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.maxWaitNanos = properties.settlementWait().toNanos();
        this.batchSizes = DistributionSummary.builder("talkide.budget.settlement.batch")
                .description("Calls settled per database commit")
                .register(meters);
        this.writer =
                Thread.ofPlatform().name("budget-settlement-writer").daemon().start(this::run);
    }

    /** A call arrived that may reserve and settle: a batch may wait for it from now on. */
    SettlementExpected expect() {
        return new SettlementExpected(unqueued);
    }

    /** Queues a settlement; the future completes once it is committed (durable), or fails. */
    CompletableFuture<Void> submit(UsageRecord record, @Nullable Reservation reservation, long leaseShrink) {
        long now = System.nanoTime();
        long gap = now - lastQueuedAt.getAndSet(now);
        meanGapNanos = meanGapNanos - meanGapNanos / 8 + gap / 8;
        Pending pending = new Pending(record, reservation, leaseShrink, new CompletableFuture<>(), now);
        boolean counted = reservation != null && reservation.queuedForSettlement();
        if (stopping && !writer.isAlive()) {
            write(List.of(pending), List.of());
        } else {
            queue.add(pending);
        }
        // Uncounted only once queued: a batch that sees nobody left to wait for finds it in the queue.
        if (counted) {
            unqueued.decrementAndGet();
        }
        return pending.done();
    }

    private void run() {
        while (!stopping || !queue.isEmpty()) {
            Pending first;
            try {
                // A top-up ahead of need rides the next settlement's commit; if none comes soon, it goes alone.
                first = queue.poll(leases.topUpsAhead().any() ? maxWaitNanos : IDLE_POLL_NANOS, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (first == null) {
                if (leases.topUpsAhead().any()) {
                    write(List.of(), leases.topUpsAhead().claim());
                }
                continue;
            }
            List<Pending> batch = new ArrayList<>();
            batch.add(first);
            queue.drainTo(batch, MAX_BATCH - 1);
            fill(batch, first.queuedAt() + maxWaitNanos);
            write(batch, leases.topUpsAhead().claim());
        }
    }

    /**
     * Waits for more settlements until {@code deadline} while calls are still out and the next one is
     * expected before it. Only the final bytes of the waiting calls are held, never a first byte.
     */
    private void fill(List<Pending> batch, long deadline) {
        while (batch.size() < MAX_BATCH && unqueued.get() > 0 && !stopping) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || meanGapNanos > left) {
                break;
            }
            Pending next;
            try {
                // In short steps: a call counted early may end without settling (refused, gone).
                next = queue.poll(Math.min(left, FILL_STEP_NANOS), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (next == null) {
                continue;
            }
            batch.add(next);
            queue.drainTo(batch, MAX_BATCH - batch.size());
        }
        // Whatever was queued before its call stopped counting joins this batch.
        queue.drainTo(batch, MAX_BATCH - batch.size());
    }

    /**
     * Commits the settlements and the top-ups ahead of need that ride along with them. On failure each
     * settlement is retried alone, without the top-ups (their calls top their leases up themselves): one
     * call the database refuses must not take the others down with it.
     */
    private void write(List<Pending> batch, List<LeaseTopUpsAhead.TopUp> topUps) {
        boolean committed = false;
        RuntimeException failure = null;
        try {
            transactions.executeWithoutResult(status -> apply(batch, topUps));
            committed = true;
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            for (LeaseTopUpsAhead.TopUp topUp : topUps) {
                topUp.finish(committed);
            }
        }
        if (committed) {
            if (!batch.isEmpty()) {
                batchSizes.record(batch.size());
            }
            batch.forEach(pending -> pending.done().complete(null));
        } else if (batch.size() > 1 || (batch.size() == 1 && !topUps.isEmpty())) {
            batch.forEach(pending -> write(List.of(pending), List.of()));
        } else if (batch.isEmpty()) {
            log.debug("Top-ups ahead of need failed; calls top their leases up themselves: {}", failure.toString());
        } else {
            Pending failed = batch.getFirst();
            log.error(
                    "Could not settle gateway call {} (its reservation expires on its own)",
                    failed.record().requestId(),
                    failure);
            failed.done().completeExceptionally(failure);
        }
    }

    private void apply(List<Pending> batch, List<LeaseTopUpsAhead.TopUp> topUps) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        List<UsageRecord> plain = new ArrayList<>();
        List<Pending> overrun = new ArrayList<>();
        for (Pending pending : batch) {
            if (pending.reservation() != null && pending.reservation().overrun()) {
                overrun.add(pending);
            } else {
                plain.add(pending.record());
            }
        }
        usage.insertAll(plain);
        Map<String, UserSettlement> users = new TreeMap<>();
        for (Pending pending : batch) {
            Reservation reservation = pending.reservation();
            if (reservation != null && reservation.lease() == null) {
                boolean ours = budgets.deleteReservation(reservation.id());
                users.computeIfAbsent(reservation.userId(), u -> new UserSettlement())
                        .add(pending.record(), ours ? reservation.amountMicros() : 0, ours ? 1 : 0);
            }
        }
        for (Pending pending : batch) {
            Reservation reservation = pending.reservation();
            if (reservation != null && reservation.lease() != null) {
                users.computeIfAbsent(reservation.userId(), u -> new UserSettlement())
                        .fromLease(pending.record(), pending.leaseShrink());
            }
        }
        for (LeaseTopUpsAhead.TopUp topUp : topUps) {
            if (topUp.wanted()) {
                users.computeIfAbsent(topUp.userId(), u -> new UserSettlement()).topUp = topUp;
            }
        }
        // Lease rows first, then the users' rows, each in user order (as every budget transaction locks).
        users.forEach((user, settled) -> {
            // Released from the user's reservation only if the lease is still there (not expired meanwhile).
            if (settled.leased && leases.shrink(user, settled.shrink)) {
                settled.released += settled.shrink;
            }
            if (settled.topUp != null) {
                settled.topUp.lockRow();
            }
        });
        users.forEach((user, settled) -> {
            if (settled.settles) {
                budgets.settle(user, settled.cost, settled.released, settled.slots, settled.tokens, now);
            }
            if (settled.topUp != null) {
                settled.topUp.grant();
            }
        });
        for (Pending pending : overrun) {
            usage.insert(pending.record(), overrunAfterSettling(pending.record().userId(), now));
        }
    }

    private long overrunAfterSettling(String userId, LimitWindows now) {
        return budgets.find(userId)
                .map(row -> Math.max(
                        0,
                        row.spentIn(now)
                                - (row.limitMicros() != null ? row.limitMicros() : properties.defaultLimitMicros())))
                .orElse(0L);
    }

    @Override
    public void destroy() throws InterruptedException {
        stopping = true;
        writer.join(SHUTDOWN_WAIT_MILLIS);
        if (writer.isAlive()) {
            log.warn("Budget settlements still queued after {} ms; their reservations expire", SHUTDOWN_WAIT_MILLIS);
        }
    }
}
