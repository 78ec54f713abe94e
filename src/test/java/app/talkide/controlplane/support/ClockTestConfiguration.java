package app.talkide.controlplane.support;

import java.time.Clock;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/** Import into a Spring test to replace the application clock with a {@link MutableClock}. */
@TestConfiguration(proxyBeanMethods = false)
public class ClockTestConfiguration {

    /** Replaces the application's {@link Clock}; inject {@link MutableClock} to move it. */
    @Bean
    @Primary
    MutableClock mutableClock() {
        return MutableClock.startingNow();
    }
}
