package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * The desired state of a tenant-environment was set, changed or deleted (deleting marks it {@code DELETING});
 * the reconcile loop reacts with an immediate pass for it instead of waiting for the next resync.
 */
public record DesiredStateChanged(TenantEnvironmentId tenantEnvironment) {}
