package app.talkide.controlplane.conversation.eventlog;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * On PostgreSQL, this replica's ear for the others' appends: one dedicated connection (not from the
 * pool, which it would hold forever) that LISTENs on the channel and wakes the feeds concerned. When the
 * connection breaks it is reopened, and every feed re-reads the log, since notifications sent meanwhile
 * are lost.
 */
@Component
class PostgresEventListener implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PostgresEventListener.class);

    private final NotificationChannel channel;
    private final ConversationFeeds feeds;
    private final DataSource dataSource;
    private final EventLogProperties properties;
    private volatile boolean running;
    private volatile Thread thread;
    private volatile Connection connection;

    PostgresEventListener(
            NotificationChannel channel,
            ConversationFeeds feeds,
            DataSource dataSource,
            EventLogProperties properties) {
        this.channel = channel;
        this.feeds = feeds;
        this.dataSource = dataSource;
        this.properties = properties;
    }

    private void run() {
        boolean reconnect = false;
        while (running) {
            try (Connection listening = open()) {
                connection = listening;
                try (Statement statement = listening.createStatement()) {
                    statement.execute("listen \"" + channel.name() + "\"");
                }
                if (reconnect) {
                    log.info("Listening for conversation events again; catching up every followed conversation");
                    feeds.refreshAll();
                }
                reconnect = true;
                listen(listening.unwrap(PGConnection.class), listening);
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                log.warn("Listening for conversation events failed ({}); reconnecting", e.getMessage());
                reconnect = true;
                pause();
            }
        }
    }

    private void listen(PGConnection pg, Connection listening) throws SQLException {
        int pollMillis = (int) properties.listenPoll().toMillis();
        while (running) {
            PGNotification[] notifications = pg.getNotifications(pollMillis);
            if (notifications == null || notifications.length == 0) {
                // Quiet: make sure the connection is alive, a dead one would wait silently forever.
                try (Statement statement = listening.createStatement()) {
                    statement.execute("select 1");
                }
                continue;
            }
            for (PGNotification notification : notifications) {
                channel.parse(notification.getParameter())
                        .forEach(appended -> feeds.appendedElsewhere(appended.conversationId(), appended.lastSeq()));
            }
        }
    }

    private Connection open() throws SQLException {
        if (dataSource.isWrapperFor(HikariDataSource.class)) {
            HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
            Properties credentials = new Properties();
            if (hikari.getUsername() != null) {
                credentials.setProperty("user", hikari.getUsername());
            }
            if (hikari.getPassword() != null) {
                credentials.setProperty("password", hikari.getPassword());
            }
            credentials.setProperty("ApplicationName", "talkide-event-listener");
            return DriverManager.getConnection(hikari.getJdbcUrl(), credentials);
        }
        throw new SQLException("LISTEN needs a connection of its own; the data source is not Hikari");
    }

    private void pause() {
        try {
            Thread.sleep(properties.listenReconnectBackoff());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void start() {
        if (!channel.crossesReplicas()) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name("conversation-event-listener").start(this::run);
    }

    @Override
    public void stop() {
        running = false;
        Connection open = connection;
        if (open != null) {
            try {
                open.close();
            } catch (SQLException ignored) {
                // closing is all we wanted
            }
        }
        Thread stopping = thread;
        if (stopping != null) {
            stopping.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Listens before the web server takes streams, and until after it stopped. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }

    /** For failover tests: breaks the connection as a network fault would. */
    void breakConnection() throws SQLException {
        Connection open = connection;
        if (open != null) {
            open.close();
        }
    }
}
