package app.talkide.controlplane.token.mint;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.token.TokenTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The token bucket at 20 mints a second with a burst of 40 (the test properties). */
class MintRateLimiterTest {

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final MintRateLimiter limiter = new MintRateLimiter(TokenTestSupport.properties(), clock);
    final UUID identity = UUID.randomUUID();

    @Test
    void aFullBucketAllowsTheBurstThenSaysHowLongUntilTheNextMint() {
        for (int i = 0; i < 40; i++) {
            assertThat(limiter.tryAcquire(identity)).as("mint %d", i).isEmpty();
        }

        assertThat(limiter.tryAcquire(identity)).contains(Duration.ofMillis(50));
    }

    @Test
    void theBucketRefillsAtTheRateAndTheWaitShrinksWithIt() {
        drain();

        clock.advance(Duration.ofMillis(20));
        assertThat(limiter.tryAcquire(identity)).contains(Duration.ofMillis(30));

        clock.advance(Duration.ofMillis(30));
        assertThat(limiter.tryAcquire(identity)).isEmpty();
        assertThat(limiter.tryAcquire(identity)).contains(Duration.ofMillis(50));
    }

    @Test
    void aLongIdleRefillsNoMoreThanTheBurst() {
        drain();
        clock.advance(Duration.ofMinutes(5));

        for (int i = 0; i < 40; i++) {
            assertThat(limiter.tryAcquire(identity)).as("mint %d", i).isEmpty();
        }
        assertThat(limiter.tryAcquire(identity)).isPresent();
    }

    @Test
    void eachIdentityHasItsOwnBucket() {
        drain();

        assertThat(limiter.tryAcquire(UUID.randomUUID())).isEmpty();
    }

    /** Takes the burst of 40; the 41st must wait. Bounded: a bucket that never empties fails here, not hangs. */
    private void drain() {
        for (int i = 0; i < 40; i++) {
            assertThat(limiter.tryAcquire(identity)).as("mint %d", i).isEmpty();
        }
        assertThat(limiter.tryAcquire(identity)).as("past the burst").isPresent();
    }
}
