package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/** A tenant-environment's desired state was set, changed or removed: the leader reconciles it at once. */
public record DesiredStateChanged(TenantEnvironmentId tenantEnvironment) {}
