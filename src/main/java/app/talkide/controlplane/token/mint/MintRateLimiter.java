package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.token.TokenProperties;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * A token bucket per identity token, held by each replica. A replica-local limit is enough here: it
 * bounds how fast one worker can make one replica sign, and a worker's calls spread over N replicas
 * allow at most N times the rate, which the spending limits (shared across replicas) still bound.
 */
@Component
class MintRateLimiter {

    private final double ratePerMilli;
    private final int burst;
    private final Clock clock;
    private final Cache<UUID, Bucket> buckets =
            Caffeine.newBuilder().expireAfterAccess(Duration.ofMinutes(10)).build();

    MintRateLimiter(TokenProperties properties, Clock clock) {
        this.ratePerMilli = properties.mint().ratePerSecond() / 1000.0;
        this.burst = properties.mint().burst();
        this.clock = clock;
    }

    /** Takes one mint from the identity's bucket; if it is empty, says how long until one is available. */
    Optional<Duration> tryAcquire(UUID identity) {
        Bucket bucket = buckets.get(identity, id -> new Bucket(burst, clock.millis()));
        synchronized (bucket) {
            long now = clock.millis();
            bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.refilledAt) * ratePerMilli);
            bucket.refilledAt = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return Optional.empty();
            }
            return Optional.of(Duration.ofMillis((long) Math.ceil((1 - bucket.tokens) / ratePerMilli)));
        }
    }

    private static final class Bucket {
        double tokens;
        long refilledAt;

        Bucket(double tokens, long refilledAt) {
            this.tokens = tokens;
            this.refilledAt = refilledAt;
        }
    }
}
