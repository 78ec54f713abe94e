package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ClockConfigurationTest {

    final Clock clock = new ClockConfiguration().clock();

    @Test
    void instantsAreWholeMicrosecondsAndMillisAgreeWithThem() {
        var instant = clock.instant();
        long millis = clock.millis();
        assertThat(instant.getNano() % 1_000).isZero();
        assertThat(millis - instant.toEpochMilli()).isBetween(0L, 1_000L);
        assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void anotherZoneKeepsTheMicrosecondTick() {
        Clock paris = clock.withZone(ZoneId.of("Europe/Paris"));
        assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
        assertThat(paris.instant().getNano() % 1_000).isZero();
        assertThat(paris.millis()).isPositive();
    }
}
