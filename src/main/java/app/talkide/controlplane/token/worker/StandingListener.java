package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.system.PostgresListener;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.util.backoff.FixedBackOff;

/**
 * On PostgreSQL, this replica's ear for revocations made on other replicas: LISTENs on
 * {@link StandingChanges#channel()}. Whenever the LISTEN (re)starts or breaks, everything remembered is
 * forgotten, since notifications sent meanwhile are lost; until then {@link OwnerStanding#MAX_AGE} bounds
 * how stale a yes can be.
 */
@Component
class StandingListener implements SmartLifecycle, PostgresListener.Handler {

    private static final Duration POLL = Duration.ofSeconds(5);
    private static final Duration RECONNECT_BACKOFF = Duration.ofSeconds(1);

    private final StandingChanges changes;
    private final PostgresListener listener;

    StandingListener(StandingChanges changes, DataSource dataSource) {
        this.changes = changes;
        this.listener = new PostgresListener(
                "standing-listener",
                "membership revocations",
                changes.channel(),
                dataSource,
                POLL,
                new FixedBackOff(RECONNECT_BACKOFF.toMillis()),
                this);
    }

    /** Whatever was said before this LISTEN took effect went unheard. */
    @Override
    public void listening(boolean again) {
        changes.heardNothingForAWhile();
    }

    @Override
    public void heard(@Nullable String payload) {
        changes.heard(payload);
    }

    @Override
    public void lost() {
        changes.heardNothingForAWhile();
    }

    @Override
    public void start() {
        if (changes.crossesReplicas()) {
            listener.start();
        }
    }

    @Override
    public void stop() {
        listener.stop();
    }

    @Override
    public boolean isRunning() {
        return listener.isRunning();
    }

    /** Listens before the web server takes calls, and until after it stopped. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }
}
