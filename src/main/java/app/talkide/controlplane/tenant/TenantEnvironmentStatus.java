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
    DELETING
}
