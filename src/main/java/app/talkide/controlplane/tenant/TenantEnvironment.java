package app.talkide.controlplane.tenant;

import java.time.Instant;

/** A tenant-environment as the control plane records it. */
public record TenantEnvironment(
        TenantEnvironmentId id, TenantEnvironmentStatus status, Instant createdAt, Instant updatedAt) {}
