package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.system.PostgresListener;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

/** On PostgreSQL, this replica's ear for revocations made on other replicas ({@link StandingChanges}). */
@Configuration(proxyBeanMethods = false)
class StandingListener {

    private static final Duration POLL = Duration.ofSeconds(5);
    private static final Duration RECONNECT_BACKOFF = Duration.ofSeconds(1);

    @Bean
    PostgresListener standingChangesListener(StandingChanges changes, DataSource dataSource) {
        return new PostgresListener(
                "standing-listener",
                "membership revocations",
                changes.channel(),
                dataSource,
                POLL,
                new FixedBackOff(RECONNECT_BACKOFF.toMillis()),
                changes);
    }
}
