package app.talkide.controlplane.system;

import java.time.Clock;
import java.time.Duration;
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
        return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
    }
}
