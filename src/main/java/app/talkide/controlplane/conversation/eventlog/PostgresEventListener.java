package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.system.PostgresListener;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.util.backoff.FixedBackOff;

/**
 * On PostgreSQL, this replica's ear for the others' appends: LISTENs on the channel and wakes the feeds
 * concerned. After the connection broke every feed re-reads the log, since notifications sent meanwhile
 * are lost.
 */
@Component
class PostgresEventListener implements SmartLifecycle, PostgresListener.Handler {

    private static final Logger log = LoggerFactory.getLogger(PostgresEventListener.class);

    private final NotificationChannel channel;
    private final ConversationFeeds feeds;
    private final PostgresListener listener;

    PostgresEventListener(
            NotificationChannel channel,
            ConversationFeeds feeds,
            DataSource dataSource,
            EventLogProperties properties) {
        this.channel = channel;
        this.feeds = feeds;
        this.listener = new PostgresListener(
                "event-listener",
                "conversation events",
                channel.name(),
                dataSource,
                properties.listenPoll(),
                new FixedBackOff(properties.listenReconnectBackoff().toMillis()),
                this);
    }

    @Override
    public void listening(boolean again) {
        if (again) {
            log.info("Listening for conversation events again; catching up every followed conversation");
            feeds.refreshAll();
        }
    }

    @Override
    public void heard(@Nullable String payload) {
        channel.parse(payload)
                .forEach(appended -> feeds.appendedElsewhere(appended.conversationId(), appended.lastSeq()));
    }

    @Override
    public void start() {
        if (channel.crossesReplicas()) {
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

    /** Listens before the web server takes streams, and until after it stopped. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }

    /** For failover tests: breaks the connection as a network fault would. */
    void breakConnection() {
        listener.breakConnection();
    }
}
