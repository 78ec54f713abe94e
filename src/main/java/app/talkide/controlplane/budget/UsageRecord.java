package app.talkide.controlplane.budget;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What one gateway call used and cost: written once per call, whatever its outcome.
 *
 * @param requestId the gateway's request id (also the {@code request_id} of errors it makes)
 * @param endpoint {@code messages} or {@code count_tokens}
 * @param model the model the caller asked for (or the upstream reported)
 * @param modelFamily the price family the model was billed as
 * @param upstreamStatus the upstream's HTTP status, null when it was never reached
 * @param firstByte time from the request's arrival to the first response byte sent, null if none was
 */
public record UsageRecord(
        String requestId,
        String tenant,
        String env,
        UUID conversationId,
        String userId,
        String endpoint,
        String model,
        String modelFamily,
        TokenCounts tokens,
        long costMicros,
        CallOutcome outcome,
        @Nullable Integer upstreamStatus,
        Instant startedAt,
        Duration duration,
        @Nullable Duration firstByte) {

    /** Tokens by kind, as the upstream reports them (or as estimated when the stream was cut short). */
    public record TokenCounts(long input, long cacheWrite5m, long cacheWrite1h, long cacheRead, long output) {

        public static final TokenCounts NONE = new TokenCounts(0, 0, 0, 0, 0);

        /** What counts against the tokens-per-hour fair-use limit: everything but cache reads. */
        public long uncached() {
            return input + cacheWrite5m + cacheWrite1h + output;
        }
    }
}
