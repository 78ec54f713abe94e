package app.talkide.controlplane.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand, so expiry and grace periods are tested without waiting. */
public final class MutableClock extends Clock {

    private final AtomicReference<Instant> now;

    /** Starts at the given instant, truncated to microseconds like the application clock. */
    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(start.truncatedTo(ChronoUnit.MICROS));
    }

    public static MutableClock startingNow() {
        return new MutableClock(Instant.now());
    }

    public void advance(Duration by) {
        now.updateAndGet(instant -> instant.plus(by));
    }

    public void set(Instant instant) {
        now.set(instant.truncatedTo(ChronoUnit.MICROS));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
