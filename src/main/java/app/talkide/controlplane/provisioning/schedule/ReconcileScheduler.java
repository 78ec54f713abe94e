package app.talkide.controlplane.provisioning.schedule;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.provisioning.leader.LeadershipChanged;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Runs reconciles on the leader: a full resync every {@code resync-interval} (the first as soon as this
 * replica leads), an immediate pass on a {@link DesiredStateChanged} (from this replica at once, from
 * others through {@link ReconcileRequests}), and retries with backoff. A tenant-environment is never
 * reconciled twice at once: a request that arrives during a pass runs once more after it.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
public class ReconcileScheduler implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ReconcileScheduler.class);

    private final ObjectProvider<TenantEnvironmentReconciler> reconciler;
    private final TenantEnvironments tenantEnvironments;
    private final LeaderElection leaderElection;
    private final ReconcileRequests requests;
    private final ReconcileScheduleProperties properties;
    private final ReconcileMetrics metrics;
    private final Clock clock;
    private final Map<TenantEnvironmentId, Slot> slots = new ConcurrentHashMap<>();
    private final Semaphore permits;
    private final ExecutorService passes = Executors.newVirtualThreadPerTaskExecutor();
    private final TaskScheduler timers;
    private final List<ScheduledFuture<?>> loops = new java.util.concurrent.CopyOnWriteArrayList<>();

    ReconcileScheduler(
            ObjectProvider<TenantEnvironmentReconciler> reconciler,
            TenantEnvironments tenantEnvironments,
            LeaderElection leaderElection,
            ReconcileRequests requests,
            ReconcileScheduleProperties properties,
            ReconcileMetrics metrics,
            Clock clock,
            TaskScheduler timers) {
        this.reconciler = reconciler;
        this.tenantEnvironments = tenantEnvironments;
        this.leaderElection = leaderElection;
        this.requests = requests;
        this.properties = properties;
        this.metrics = metrics;
        this.clock = clock;
        this.timers = timers;
        this.permits = new Semaphore(properties.maxConcurrent());
        metrics.queue(permits);
    }

    @EventListener
    void onLeadershipChanged(LeadershipChanged changed) {
        loops.forEach(loop -> loop.cancel(false));
        loops.clear();
        if (changed.leading() && reconciler.getIfUnique() == null) {
            // A build without a reconciler still starts (like a worker runtime that is missing): said at
            // WARN, nothing is reconciled, readiness and rotation still work.
            log.warn("No TenantEnvironmentReconciler in this control plane: the leader reconciles nothing");
        } else if (changed.leading()) {
            var poll = properties.changePollInterval();
            loops.add(timers.scheduleWithFixedDelay(this::resyncAll, properties.resyncInterval()));
            loops.add(timers.scheduleWithFixedDelay(
                    this::pollRequests, timers.getClock().instant().plus(poll), poll));
        } else {
            slots.values().forEach(Slot::cancelRetry);
        }
    }

    /** After the change committed, so the pass reads the new desired state. */
    @TransactionalEventListener(fallbackExecution = true)
    void onDesiredStateChanged(DesiredStateChanged changed) {
        if (leaderElection.isLeader()) {
            request(changed.tenantEnvironment(), Trigger.CHANGE);
        } else {
            requests.add(changed.tenantEnvironment(), clock.instant());
        }
    }

    /** Reconciles every known tenant-environment, {@code max-concurrent} at a time. */
    public void resyncAll() {
        try {
            List<TenantEnvironment> all = tenantEnvironments.all();
            log.debug("Resync of {} tenant-environments", all.size());
            all.forEach(environment -> request(environment.id(), Trigger.RESYNC));
        } catch (RuntimeException e) {
            log.warn("Resync could not list the tenant-environments; trying again next interval", e);
        }
    }

    private void pollRequests() {
        try {
            requests.takeAll().forEach(id -> request(id, Trigger.CHANGE));
        } catch (RuntimeException e) {
            log.warn("Could not read waiting reconcile requests; trying again", e);
        }
    }

    /** Reconciles one tenant-environment soon; folds into a pass already running or waiting for it. */
    public void request(TenantEnvironmentId id, Trigger trigger) {
        if (!leaderElection.isLeader()) {
            return;
        }
        Slot slot = slots.computeIfAbsent(id, ignored -> new Slot());
        synchronized (slot) {
            if (slot.running) {
                slot.again = slot.again == null ? trigger : slot.again.stronger(trigger);
                return;
            }
            slot.running = true;
            slot.cancelRetry();
        }
        passes.execute(() -> run(id, slot, trigger));
    }

    private void run(TenantEnvironmentId id, Slot slot, Trigger trigger) {
        Trigger next = trigger;
        while (next != null) {
            pass(id, slot, next);
            synchronized (slot) {
                next = slot.again;
                slot.again = null;
                if (next == null) {
                    slot.running = false;
                }
            }
        }
    }

    private void pass(TenantEnvironmentId id, Slot slot, Trigger trigger) {
        if (!leaderElection.isLeader()) {
            return;
        }
        permits.acquireUninterruptibly();
        long started = System.nanoTime();
        try {
            if (!leaderElection.isLeader()) {
                // Leadership went while this pass queued for a permit (a resync queues hundreds): the new
                // leader reconciles now, and two replicas must never write the same objects at once.
                return;
            }
            TenantEnvironmentReconciler.ReconcileResult result =
                    reconciler.getObject().reconcile(id, leaderElection::isLeader);
            metrics.passed(trigger, result, System.nanoTime() - started);
            if (result.retry()) {
                // A conflict, 429 or 5xx: retried soon with backoff rather than left DEGRADED until the
                // next resync.
                retryLater(id, slot, result.degradedReason(), null);
                return;
            }
            if (slot.failures > 0) {
                log.info("Reconcile of {} succeeded again after {} failures", id, slot.failures);
            }
            slot.failures = 0;
            slot.backOff = null;
            metrics.failing(id, false);
        } catch (RuntimeException e) {
            metrics.failed(trigger, System.nanoTime() - started);
            retryLater(id, slot, e.getMessage(), e);
        } finally {
            permits.release();
        }
    }

    /**
     * Schedules the next attempt per Spring's {@link ExponentialBackOff}: {@code initial-backoff} doubling up
     * to {@code max-backoff}, with jitter so that tenant-environments failing together (an API server
     * restart) do not all come back in the same instant.
     */
    private void retryLater(TenantEnvironmentId id, Slot slot, @Nullable String why, @Nullable RuntimeException e) {
        metrics.failing(id, true);
        slot.failures++;
        if (slot.backOff == null) {
            ExponentialBackOff policy =
                    new ExponentialBackOff(properties.initialBackoff().toMillis(), 2.0);
            policy.setMaxInterval(properties.maxBackoff().toMillis());
            policy.setJitter(properties.initialBackoff().toMillis() / 2);
            slot.backOff = policy.start();
        }
        long wait = slot.backOff.nextBackOff();
        if (e != null) {
            log.warn("Reconcile of {} failed ({} in a row); retrying in {} ms", id, slot.failures, wait, e);
        } else {
            log.warn(
                    "Reconcile of {} hit a transient API error ({} in a row); retrying in {} ms: {}",
                    id,
                    slot.failures,
                    wait,
                    why);
        }
        synchronized (slot) {
            slot.retry = timers.schedule(
                    () -> request(id, Trigger.RETRY),
                    timers.getClock().instant().plusMillis(wait));
        }
    }

    @Override
    public void destroy() {
        loops.forEach(loop -> loop.cancel(true));
        slots.values().forEach(Slot::cancelRetry);
        passes.shutdownNow();
    }

    /** Why a pass runs; only a resync that writes counts as drift repair (a change is expected to write). */
    public enum Trigger {
        RESYNC,
        RETRY,
        CHANGE;

        Trigger stronger(Trigger other) {
            return other.ordinal() > ordinal() ? other : this;
        }
    }

    /** One tenant-environment's scheduling state; guarded by its own monitor. */
    private static final class Slot {
        boolean running;

        @Nullable
        Trigger again;

        @Nullable
        ScheduledFuture<?> retry;

        volatile int failures;

        /** The running backoff of a failing tenant-environment; {@code null} while it succeeds. */
        volatile @Nullable BackOffExecution backOff;

        synchronized void cancelRetry() {
            if (retry != null) {
                retry.cancel(false);
                retry = null;
            }
        }
    }
}
