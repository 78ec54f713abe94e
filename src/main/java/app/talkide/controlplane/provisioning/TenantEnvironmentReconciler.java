package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * Brings one tenant-environment's objects in the cluster to its desired state. Called only on the
 * elected leader: by the periodic resync, on a desired-state change, and by token rotation.
 */
public interface TenantEnvironmentReconciler {

    /** Applies the desired objects; a no-op (no write calls) when the cluster already matches. */
    ReconcileResult reconcile(TenantEnvironmentId id);

    /**
     * As {@link #reconcile(TenantEnvironmentId)}, but stops before its next write once {@code stillLeading}
     * says this replica lost the Lease: a new leader may already be writing the same objects.
     */
    default ReconcileResult reconcile(TenantEnvironmentId id, java.util.function.BooleanSupplier stillLeading) {
        return reconcile(id);
    }

    /** Deletes everything the control plane created for the tenant-environment and revokes its tokens. */
    void deprovision(TenantEnvironmentId id);

    /**
     * What a pass did.
     *
     * @param writes create/patch/delete calls it made (0 in a steady state)
     * @param degradedReason why the tenant-environment cannot be brought into shape, or {@code null}
     * @param retry whether the pass failed on a transient API error (conflict, 429, 5xx, connection): the
     *     scheduler retries it with backoff instead of waiting for the next resync
     */
    record ReconcileResult(
            int writes, @org.jspecify.annotations.Nullable String degradedReason, boolean retry) {

        public ReconcileResult(int writes, @org.jspecify.annotations.Nullable String degradedReason) {
            this(writes, degradedReason, false);
        }
    }
}
