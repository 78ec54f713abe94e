package app.talkide.controlplane.gateway.metering;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import tools.jackson.databind.JsonNode;

/**
 * Usage as the upstream reports it: input, cache writes (split 5 min / 1 h when the upstream says so),
 * cache reads and output. Later reports replace earlier ones field by field, as the counts in a
 * stream's {@code message_delta} are cumulative.
 */
public final class UsageCounter {

    private long input;
    private long cacheWrite5m;
    private long cacheWrite1h;
    private long cacheRead;
    private long output;
    private boolean outputReported;

    /** Takes the fields present in a {@code usage} object; absent fields keep their value. */
    public void take(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return;
        }
        input = longOr(usage.get("input_tokens"), input);
        cacheRead = longOr(usage.get("cache_read_input_tokens"), cacheRead);
        JsonNode creation = usage.get("cache_creation");
        JsonNode creationTotal = usage.get("cache_creation_input_tokens");
        if (creation != null && creation.isObject()) {
            long fiveMinutes = longOr(creation.get("ephemeral_5m_input_tokens"), 0);
            long oneHour = longOr(creation.get("ephemeral_1h_input_tokens"), 0);
            long total = longOr(creationTotal, fiveMinutes + oneHour);
            // Whatever the split does not account for is billed as a 5-minute write, the default TTL.
            cacheWrite1h = oneHour;
            cacheWrite5m = Math.max(fiveMinutes, total - oneHour);
        } else if (creationTotal != null && creationTotal.isNumber()) {
            cacheWrite5m = creationTotal.asLong();
            cacheWrite1h = 0;
        }
        JsonNode outputTokens = usage.get("output_tokens");
        if (outputTokens != null && outputTokens.isNumber()) {
            output = outputTokens.asLong();
        }
    }

    /** Records that this output count is the upstream's final word (a {@code message_delta}). */
    public void outputIsFinal() {
        outputReported = true;
    }

    public boolean outputReported() {
        return outputReported;
    }

    public long output() {
        return output;
    }

    public TokenCounts counts(long outputTokens) {
        return new TokenCounts(input, cacheWrite5m, cacheWrite1h, cacheRead, outputTokens);
    }

    public TokenCounts counts() {
        return counts(output);
    }

    private static long longOr(JsonNode node, long fallback) {
        return node != null && node.isNumber() ? Math.max(0, node.asLong()) : fallback;
    }
}
