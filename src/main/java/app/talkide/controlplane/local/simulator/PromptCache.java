package app.talkide.controlplane.local.simulator;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Simulates Anthropic prompt caching, so cache writes and reads show up in usage the way they do with
 * the real API and the gateway's cache pricing meets real numbers.
 *
 * <p>Each {@code cache_control} breakpoint names the prefix up to it. The longest prefix seen before
 * and not yet expired is read from the cache (and its lifetime refreshed); the tokens from there to
 * the last breakpoint are written, each stretch with the lifetime of the breakpoint that ends it.
 * Prefixes shorter than the minimum are not cached, as with the real API.
 */
final class PromptCache {

    /** Bounds memory; a local simulator never legitimately holds this many distinct prefixes. */
    private static final int MAX_ENTRIES = 10_000;

    private final Map<String, Instant> expiries = new ConcurrentHashMap<>();
    private final Clock clock;
    private final int minCacheableTokens;

    PromptCache(Clock clock, int minCacheableTokens) {
        this.clock = clock;
        this.minCacheableTokens = minCacheableTokens;
    }

    /** Splits the prompt's tokens into uncached, written and read, and records what was written. */
    InputUsage account(Prompt prompt) {
        Instant now = clock.instant();
        var segments = prompt.segments();
        int[] prefixTokens = new int[segments.size()];
        int lastBreakpoint = -1;
        int readIndex = -1;
        for (int i = 0, sum = 0; i < segments.size(); i++) {
            sum += segments.get(i).tokens();
            prefixTokens[i] = sum;
            if (segments.get(i).breakpoint() != null) {
                lastBreakpoint = i;
            }
        }
        for (int i = lastBreakpoint; i >= 0 && readIndex < 0; i--) {
            Prompt.Segment segment = segments.get(i);
            if (segment.breakpoint() != null && cacheable(prefixTokens[i]) && live(segment.prefixHash(), now)) {
                readIndex = i;
                expiries.put(segment.prefixHash(), now.plus(segment.breakpoint().lifetime()));
            }
        }
        int read = readIndex < 0 ? 0 : prefixTokens[readIndex];
        int written5m = 0;
        int written1h = 0;
        int cachedUpTo = read;
        for (int i = readIndex + 1; i <= lastBreakpoint; i++) {
            Prompt.Segment segment = segments.get(i);
            CacheTtl ttl = segment.breakpoint();
            if (ttl == null || !cacheable(prefixTokens[i])) {
                continue;
            }
            int stretch = prefixTokens[i] - cachedUpTo;
            if (ttl == CacheTtl.ONE_HOUR) {
                written1h += stretch;
            } else {
                written5m += stretch;
            }
            cachedUpTo = prefixTokens[i];
            remember(segment.prefixHash(), now.plus(ttl.lifetime()), now);
        }
        int total = prompt.totalTokens();
        return new InputUsage(total - read - written5m - written1h, written5m, written1h, read);
    }

    private boolean cacheable(int prefixTokens) {
        return prefixTokens >= minCacheableTokens;
    }

    private boolean live(String prefixHash, Instant now) {
        Instant expiry = expiries.get(prefixHash);
        return expiry != null && expiry.isAfter(now);
    }

    private void remember(String prefixHash, Instant expiry, Instant now) {
        if (expiries.size() >= MAX_ENTRIES) {
            expiries.values().removeIf(existing -> !existing.isAfter(now));
            if (expiries.size() >= MAX_ENTRIES) {
                expiries.clear();
            }
        }
        expiries.put(prefixHash, expiry);
    }
}
