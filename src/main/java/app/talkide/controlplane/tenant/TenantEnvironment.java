package app.talkide.controlplane.tenant;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A tenant-environment as the control plane records it.
 *
 * @param statusReason why it is in its status (always set when {@link TenantEnvironmentStatus#DEGRADED})
 */
public record TenantEnvironment(
        TenantEnvironmentId id,
        TenantEnvironmentStatus status,
        @Nullable String statusReason,
        Instant createdAt,
        Instant updatedAt) {}
