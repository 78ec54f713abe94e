package app.talkide.controlplane.workercontract;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Remembers every token id until the token has expired, so each command token works exactly once. It
 * never evicts a live entry (an evicting cache would reopen the replay window under load); its size is
 * bounded by the command rate times the token lifetime, and expired entries are swept as it is used.
 */
public final class ReplayCache {

    private static final int SWEEP_EVERY = 1024;

    private final Map<String, Instant> seen = new ConcurrentHashMap<>();
    private final AtomicInteger sinceSweep = new AtomicInteger();

    /** Records the id; false if it was already used by a token that has not yet expired. */
    public boolean firstUse(String tokenId, Instant expiresAt, Instant now) {
        if (sinceSweep.incrementAndGet() >= SWEEP_EVERY) {
            sinceSweep.set(0);
            seen.values().removeIf(expiry -> expiry.isBefore(now));
        }
        Instant previous = seen.putIfAbsent(tokenId, expiresAt);
        return previous == null;
    }

    public int size() {
        return seen.size();
    }
}
