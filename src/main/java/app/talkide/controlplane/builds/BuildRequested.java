package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.UUID;

/** A build was queued on this replica; the leader (if it is this one) dispatches at once. */
public record BuildRequested(UUID buildId, TenantEnvironmentId tenantEnvironment) {}
