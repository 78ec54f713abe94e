package app.talkide.controlplane.builds;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A build as the worker API and the admin API show it.
 *
 * @param queuePosition 1 for the next to start, 0 once it left the queue
 * @param durationMs run time so far, or in total once finished; null before it started
 */
public record BuildView(
        UUID id,
        UUID conversationId,
        String tenant,
        String env,
        String kind,
        String state,
        int queuePosition,
        List<String> tasks,
        List<String> arguments,
        @Nullable String dockerfile,
        @Nullable String context,
        @Nullable String destination,
        @Nullable String reason,
        Instant createdAt,
        @Nullable Instant startedAt,
        @Nullable Instant finishedAt,
        @Nullable Long durationMs) {

    static BuildView of(Build build, int queuePosition, Instant now) {
        BuildSpec spec = build.spec();
        Long duration = null;
        if (build.startedAt() != null) {
            Instant end = build.finishedAt() != null ? build.finishedAt() : now;
            duration = end.toEpochMilli() - build.startedAt().toEpochMilli();
        }
        return new BuildView(
                build.id(),
                build.conversationId(),
                build.tenantEnvironment().tenant(),
                build.tenantEnvironment().env(),
                spec.kind().wireName(),
                build.state().name().toLowerCase(java.util.Locale.ROOT),
                queuePosition,
                spec.tasks(),
                spec.arguments(),
                spec.dockerfile(),
                spec.context(),
                spec.destination(),
                build.reason(),
                build.createdAt(),
                build.startedAt(),
                build.finishedAt(),
                duration);
    }
}
