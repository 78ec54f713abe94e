package app.talkide.controlplane.tenant;

/** Where a tenant-environment is in its life. */
public enum TenantEnvironmentStatus {
    /** Known, its worker not yet confirmed running. */
    PROVISIONING,
    /** Its worker answers. */
    READY,
    /** Something is wrong; the status reason says what. */
    DEGRADED,
    /** Being torn down; no new conversations or tokens. */
    DELETING,
    /**
     * Torn down: nothing left in the cluster, its identity tokens revoked. The record stays because its
     * conversations and token records refer to it; setting a desired state again brings it back.
     */
    DELETED
}
