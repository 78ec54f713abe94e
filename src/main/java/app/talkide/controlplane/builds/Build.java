package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A build as stored.
 *
 * @param seq its place in the tenant-environment's queue (smaller goes first)
 * @param jobName the Job running it, once dispatched
 * @param reason why it failed or was cancelled
 */
public record Build(
        UUID id,
        long seq,
        TenantEnvironmentId tenantEnvironment,
        UUID conversationId,
        String userId,
        BuildSpec spec,
        BuildState state,
        @Nullable String jobName,
        @Nullable String reason,
        Instant createdAt,
        @Nullable Instant startedAt,
        @Nullable Instant finishedAt) {}
