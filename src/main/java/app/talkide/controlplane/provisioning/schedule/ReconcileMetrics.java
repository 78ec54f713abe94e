package app.talkide.controlplane.provisioning.schedule;

import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler.ReconcileResult;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Reconcile metrics: {@code talkide.provisioning.reconcile.duration} (histogram, by trigger and outcome),
 * {@code talkide.provisioning.reconcile.failing} (tenant-environments whose last
 * pass failed), {@code talkide.provisioning.reconcile.queued} (passes waiting for one of the
 * {@code max-concurrent} permits). No tenant names in tags: their number is unbounded. Drift repairs are
 * counted by the reconciler alone, which knows whether the desired state had been applied before; counting
 * them here too made every repair count twice.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
class ReconcileMetrics {

    private final MeterRegistry registry;
    private final Set<TenantEnvironmentId> failing = ConcurrentHashMap.newKeySet();

    ReconcileMetrics(MeterRegistry registry) {
        this.registry = registry;
        registry.gauge("talkide.provisioning.reconcile.failing", failing, Set::size);
    }

    void queue(Semaphore permits) {
        registry.gauge("talkide.provisioning.reconcile.queued", permits, Semaphore::getQueueLength);
    }

    void passed(ReconcileScheduler.Trigger trigger, ReconcileResult result, long nanos) {
        timer(trigger, result.degradedReason() == null ? "success" : "degraded").record(Duration.ofNanos(nanos));
    }

    void failed(ReconcileScheduler.Trigger trigger, long nanos) {
        timer(trigger, "error").record(Duration.ofNanos(nanos));
    }

    void failing(TenantEnvironmentId id, boolean now) {
        if (now) {
            failing.add(id);
        } else {
            failing.remove(id);
        }
    }

    private Timer timer(ReconcileScheduler.Trigger trigger, String outcome) {
        return Timer.builder("talkide.provisioning.reconcile.duration")
                .description("Time of one reconcile pass of one tenant-environment")
                .tag("trigger", trigger.name().toLowerCase(java.util.Locale.ROOT))
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .register(registry);
    }
}
