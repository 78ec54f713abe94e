package app.talkide.controlplane.budget.account;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** A user's budget row as stored; nulls in the settings mean "the configured default". */
public record BudgetRow(
        String userId,
        @Nullable Long limitMicros,
        @Nullable Enforcement enforcement,
        @Nullable Integer maxConcurrent,
        @Nullable Integer requestsPerMinute,
        @Nullable Long tokensPerHour,
        Instant periodStart,
        long spentMicros,
        long reservedMicros,
        int inFlight,
        Instant minuteStart,
        int minuteRequests,
        Instant hourStart,
        long hourTokens) {

    /** Spend in the period {@code windows} falls into (zero if the row still holds an earlier period). */
    public long spentIn(LimitWindows windows) {
        return periodStart.isBefore(windows.period()) ? 0 : spentMicros;
    }

    public UserBudgetSettings settings() {
        return new UserBudgetSettings(limitMicros, enforcement, maxConcurrent, requestsPerMinute, tokensPerHour);
    }
}
