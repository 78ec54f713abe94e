package app.talkide.controlplane.gateway.pricing;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;

/**
 * What a model family costs, in micro-dollars per million tokens of each kind.
 *
 * @param family the family's name, used in usage records and metric tags (a bounded set)
 */
public record ModelPrice(String family, long input, long output, long cacheWrite5m, long cacheWrite1h, long cacheRead) {

    private static final long MILLION = 1_000_000L;

    /** The cost in micro-dollars, rounded up to the next whole micro-dollar. */
    public long cost(TokenCounts tokens) {
        long perMillion = tokens.input() * input
                + tokens.cacheWrite5m() * cacheWrite5m
                + tokens.cacheWrite1h() * cacheWrite1h
                + tokens.cacheRead() * cacheRead
                + tokens.output() * output;
        return Math.ceilDiv(perMillion, MILLION);
    }

    /** The cost of {@code inputTokens} uncached input and {@code outputTokens} output. */
    public long cost(long inputTokens, long outputTokens) {
        return cost(new TokenCounts(inputTokens, 0, 0, 0, outputTokens));
    }
}
