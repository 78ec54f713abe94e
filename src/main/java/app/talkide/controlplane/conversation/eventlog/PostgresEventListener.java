package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.system.PostgresListener;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

/**
 * On PostgreSQL, this replica's ear for the others' appends: LISTENs on the channel and wakes the feeds
 * concerned. After the connection broke every feed re-reads the log, since notifications sent meanwhile
 * are lost.
 */
@Configuration(proxyBeanMethods = false)
class PostgresEventListener {

    private static final Logger log = LoggerFactory.getLogger(PostgresEventListener.class);

    @Bean
    PostgresListener conversationEventListener(
            NotificationChannel channel,
            ConversationFeeds feeds,
            DataSource dataSource,
            EventLogProperties properties) {
        return new PostgresListener(
                "event-listener",
                "conversation events",
                channel.channel(),
                dataSource,
                properties.listenPoll(),
                new FixedBackOff(properties.listenReconnectBackoff().toMillis()),
                new PostgresListener.Handler() {
                    @Override
                    public void listening(boolean again) {
                        if (again) {
                            log.info(
                                    "Listening for conversation events again; catching up every followed conversation");
                            feeds.refreshAll();
                        }
                    }

                    @Override
                    public void heard(@Nullable String payload) {
                        channel.parse(payload)
                                .forEach(appended ->
                                        feeds.appendedElsewhere(appended.conversationId(), appended.lastSeq()));
                    }
                });
    }
}
