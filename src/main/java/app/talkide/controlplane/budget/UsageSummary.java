package app.talkide.controlplane.budget;

/** Usage summed over one group (a user, a tenant-environment, a model ...) of a report. */
public record UsageSummary(
        String key,
        long calls,
        long inputTokens,
        long cacheWrite5mTokens,
        long cacheWrite1hTokens,
        long cacheReadTokens,
        long outputTokens,
        long costMicros,
        long overrunMicros) {}
