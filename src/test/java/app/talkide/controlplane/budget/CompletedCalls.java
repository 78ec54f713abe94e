package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/** Usage records of completed gateway calls, as the budget tests settle them. */
final class CompletedCalls {

    static final TokenCounts TOKENS = new TokenCounts(10, 0, 0, 0, 10);

    private CompletedCalls() {}

    static UsageRecord of(String user, long costMicros, Instant at) {
        return of(user, costMicros, TOKENS, at);
    }

    static UsageRecord of(String user, long costMicros, TokenCounts tokens, Instant at) {
        return of(user, "acme", costMicros, tokens, at);
    }

    /** A call of a user of {@code tenant} (its {@code dev} environment). */
    static UsageRecord of(String user, String tenant, long costMicros, TokenCounts tokens, Instant at) {
        return new UsageRecord(
                "gw_test",
                tenant,
                "dev",
                UUID.randomUUID(),
                user,
                "messages",
                "claude-opus-4-5",
                "opus",
                tokens,
                costMicros,
                CallOutcome.COMPLETED,
                200,
                at,
                Duration.ofMillis(5),
                Duration.ofMillis(1));
    }
}
