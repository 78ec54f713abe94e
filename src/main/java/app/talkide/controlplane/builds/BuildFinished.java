package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.UUID;

/** A build reached a final state on this replica; a running slot of its tenant-environment is free again. */
public record BuildFinished(UUID buildId, TenantEnvironmentId tenantEnvironment, BuildState state) {}
