package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * Brings one tenant-environment's objects in the cluster to its desired state. Called only on the
 * elected leader: by the periodic resync, on a desired-state change, and by token rotation.
 */
public interface TenantEnvironmentReconciler {

    /** Applies the desired objects; a no-op (no write calls) when the cluster already matches. */
    ReconcileResult reconcile(TenantEnvironmentId id);

    /** Deletes everything the control plane created for the tenant-environment and revokes its tokens. */
    void deprovision(TenantEnvironmentId id);

    /**
     * What a pass did.
     *
     * @param writes create/patch/delete calls it made (0 in a steady state)
     * @param degradedReason why the tenant-environment cannot be brought into shape, or {@code null}
     */
    record ReconcileResult(
            int writes, @org.jspecify.annotations.Nullable String degradedReason) {}
}
