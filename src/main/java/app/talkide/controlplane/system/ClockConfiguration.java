package app.talkide.controlplane.system;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One UTC clock for the whole application, so tests can move time instead of waiting for it. It ticks
 * in microseconds, the resolution PostgreSQL and H2 store: an instant that went through the database
 * comes back equal, never rounded past the moment it was taken.
 */
@Configuration(proxyBeanMethods = false)
class ClockConfiguration {

    @Bean
    Clock clock() {
        return new MicrosecondClock(ZoneOffset.UTC);
    }

    /**
     * The system UTC clock with instants cut to microseconds. Not {@code Clock.tick(systemUTC(), 1 µs)}: on Java 21
     * (the JRE of the production image) its {@code millis()} divides by the tick in whole milliseconds, zero,
     * and throws; the mint endpoint's rate limiter failed every call in the image that way. Later JDKs fixed it.
     */
    static final class MicrosecondClock extends Clock {

        private final ZoneId zone;
        private final Clock system = Clock.systemUTC();

        MicrosecondClock(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return new MicrosecondClock(zone);
        }

        @Override
        public long millis() {
            return system.millis();
        }

        @Override
        public Instant instant() {
            return system.instant().truncatedTo(ChronoUnit.MICROS);
        }
    }
}
