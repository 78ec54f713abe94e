package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** A running build was cancelled on this replica; its Job (if any) is deleted from here, leader or not. */
public record BuildCancelled(
        UUID buildId,
        TenantEnvironmentId tenantEnvironment,
        @Nullable String jobName) {}
