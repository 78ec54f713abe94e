package app.talkide.controlplane.worker.delivery;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with jitter, so replicas retrying one worker do not retry in step. */
final class Backoff {

    private final Duration initial;
    private final Duration max;
    private Duration next;

    Backoff(Duration initial, Duration max) {
        this.initial = initial;
        this.max = max;
        this.next = initial;
    }

    /** The wait before the next attempt; each call doubles the one after, up to the maximum. */
    Duration next() {
        Duration current = next;
        Duration doubled = current.multipliedBy(2);
        next = doubled.compareTo(max) > 0 ? max : doubled;
        long jitter = ThreadLocalRandom.current().nextLong(current.toMillis() / 4 + 1);
        return current.plusMillis(jitter);
    }

    void reset() {
        next = initial;
    }
}
