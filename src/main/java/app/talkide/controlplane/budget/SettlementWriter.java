package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseTopUpsAhead;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Group commit of settlements: one thread writes every settlement that queued while the previous
 * transaction committed in one durable transaction ({@link SettlementCommit}). No batch waits for more:
 * under load a commit carries whatever queued during the one before; alone, a call waits for one commit.
 * A call's last byte goes out once its settlement is durable. On PostgreSQL the usual batch (calls of
 * this replica's leases) is one statement ({@link OneStatementSettlement}).
 */
@Component
class SettlementWriter implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(SettlementWriter.class);
    private static final int MAX_BATCH = 256;
    private static final long SHUTDOWN_WAIT_MILLIS = 15_000;
    private static final long IDLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    // How long a top-up ahead of need waits for a settlement's commit to ride along; it holds no call.
    private static final long TOP_UP_RIDE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * @param reservation null for a call that held none (a denial, {@code count_tokens})
     * @param leaseShrink for a call reserved from a lease: what the lease shrinks by (its share of the cost)
     */
    record Pending(
            UsageRecord record, @Nullable Reservation reservation, long leaseShrink, CompletableFuture<Void> done) {}

    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final BudgetLeases leases;
    private final SettlementCommit commit;
    private final OneStatementSettlement oneStatement;
    private final TransactionTemplate transactions;
    private final DistributionSummary batchSizes;
    private final Thread writer;
    private volatile boolean stopping;

    SettlementWriter(
            BudgetRepository budgets,
            ReservationRepository reservations,
            UsageRecordRepository usage,
            BudgetLeases leases,
            BudgetProperties properties,
            Clock clock,
            PlatformTransactionManager transactionManager,
            MeterRegistry meters,
            OneStatementSettlement oneStatement) {
        this.leases = leases;
        this.commit = new SettlementCommit(budgets, reservations, usage, leases, properties, clock);
        this.oneStatement = oneStatement;
        this.transactions = new TransactionTemplate(transactionManager);
        this.batchSizes = DistributionSummary.builder("talkide.budget.settlement.batch")
                .description("Calls settled per database commit")
                .register(meters);
        this.writer =
                Thread.ofPlatform().name("budget-settlement-writer").daemon().start(this::run);
    }

    /** Queues a settlement; the future completes once it is committed (durable), or fails. */
    CompletableFuture<Void> submit(UsageRecord record, @Nullable Reservation reservation, long leaseShrink) {
        Pending pending = new Pending(record, reservation, leaseShrink, new CompletableFuture<>());
        if (stopping && !writer.isAlive()) {
            write(List.of(pending), List.of());
        } else {
            queue.add(pending);
        }
        return pending.done();
    }

    private void run() {
        while (!stopping || !queue.isEmpty()) {
            Pending first;
            try {
                // A top-up ahead of need rides the next settlement's commit; if none comes soon, it goes alone.
                first = queue.poll(
                        leases.topUpsAhead().any() ? TOP_UP_RIDE_NANOS : IDLE_POLL_NANOS, TimeUnit.NANOSECONDS);
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
            // Whatever queued while the previous commit ran: no waiting for more.
            queue.drainTo(batch, MAX_BATCH - 1);
            write(batch, leases.topUpsAhead().claim());
        }
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
            if (oneStatement.covers(batch, topUps)) {
                oneStatement.apply(batch);
            } else {
                transactions.executeWithoutResult(status -> commit.apply(batch, topUps));
            }
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

    @Override
    public void destroy() throws InterruptedException {
        if (!stop(Duration.ofMillis(SHUTDOWN_WAIT_MILLIS))) {
            log.warn("Budget settlements still queued after {} ms; their reservations expire", SHUTDOWN_WAIT_MILLIS);
        }
    }

    /** Lets the writer finish what is queued and end; true if it ended within {@code wait}. */
    boolean stop(Duration wait) throws InterruptedException {
        stopping = true;
        return writer.join(wait);
    }
}
