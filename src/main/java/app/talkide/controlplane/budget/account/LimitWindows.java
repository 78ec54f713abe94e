package app.talkide.controlplane.budget.account;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/** The budget period, fair-use minute and fair-use hour that a moment falls into. */
public record LimitWindows(Instant now, Instant period, Instant periodEnd, Instant minute, Instant hour) {

    public static LimitWindows at(Instant now, BudgetPeriod period) {
        return new LimitWindows(
                now,
                period.start(now),
                period.end(now),
                now.truncatedTo(ChronoUnit.MINUTES),
                now.truncatedTo(ChronoUnit.HOURS));
    }

    /** How long from now until {@code then}; zero if it has passed. */
    public Duration until(Instant then) {
        Duration left = Duration.between(now, then);
        return left.isNegative() ? Duration.ZERO : left;
    }

    public Map<String, Object> asParams() {
        return Map.of(
                "now", Timestamp.from(now),
                "period", Timestamp.from(period),
                "minute", Timestamp.from(minute),
                "hour", Timestamp.from(hour));
    }
}
