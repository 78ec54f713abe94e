package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A stand-in for the real reconciler: records which tenant-environments it was asked to reconcile,
 * notices two passes of one tenant-environment at once, and answers as the test tells it.
 */
public class RecordingReconciler implements TenantEnvironmentReconciler {

    public final List<TenantEnvironmentId> reconciled = new CopyOnWriteArrayList<>();
    public final List<TenantEnvironmentId> deprovisioned = new CopyOnWriteArrayList<>();
    public final AtomicInteger overlapping = new AtomicInteger();
    private final java.util.Set<TenantEnvironmentId> inFlight = java.util.concurrent.ConcurrentHashMap.newKeySet();
    public volatile Function<TenantEnvironmentId, ReconcileResult> behaviour = id -> new ReconcileResult(0, null);

    @Override
    public ReconcileResult reconcile(TenantEnvironmentId id) {
        if (!inFlight.add(id)) {
            overlapping.incrementAndGet();
        }
        try {
            reconciled.add(id);
            return behaviour.apply(id);
        } finally {
            inFlight.remove(id);
        }
    }

    @Override
    public void deprovision(TenantEnvironmentId id) {
        deprovisioned.add(id);
    }

    public long count(TenantEnvironmentId id) {
        return reconciled.stream().filter(id::equals).count();
    }
}
