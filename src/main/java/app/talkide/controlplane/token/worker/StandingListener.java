package app.talkide.controlplane.token.worker;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * On PostgreSQL, this replica's ear for revocations made on other replicas: one dedicated connection (not
 * from the pool, which it would hold forever) LISTENing on {@link StandingChanges#channel()}. When it
 * breaks it is reopened and everything remembered is forgotten, since notifications sent meanwhile are
 * lost; until then {@link OwnerStanding#MAX_AGE} bounds how stale a yes can be.
 */
@Component
class StandingListener implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(StandingListener.class);
    private static final Duration POLL = Duration.ofSeconds(5);
    private static final Duration RECONNECT_BACKOFF = Duration.ofSeconds(1);

    private final StandingChanges changes;
    private final DataSource dataSource;
    private volatile boolean running;
    private volatile Thread thread;
    private volatile Connection connection;

    StandingListener(StandingChanges changes, DataSource dataSource) {
        this.changes = changes;
        this.dataSource = dataSource;
    }

    private void run() {
        while (running) {
            try (Connection listening = open()) {
                connection = listening;
                try (Statement statement = listening.createStatement()) {
                    statement.execute("listen \"" + changes.channel() + "\"");
                }
                // Whatever was said before this LISTEN took effect went unheard.
                changes.heardNothingForAWhile();
                listen(listening.unwrap(PGConnection.class), listening);
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                log.warn("Listening for membership revocations failed ({}); reconnecting", e.getMessage());
                changes.heardNothingForAWhile();
                pause();
            }
        }
    }

    private void listen(PGConnection pg, Connection listening) throws SQLException {
        while (running) {
            PGNotification[] notifications = pg.getNotifications((int) POLL.toMillis());
            if (notifications == null || notifications.length == 0) {
                // Quiet: make sure the connection is alive, a dead one would wait silently forever.
                try (Statement statement = listening.createStatement()) {
                    statement.execute("select 1");
                }
                continue;
            }
            for (PGNotification notification : notifications) {
                changes.heard(notification.getParameter());
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
            credentials.setProperty("ApplicationName", "talkide-standing-listener");
            return DriverManager.getConnection(hikari.getJdbcUrl(), credentials);
        }
        throw new SQLException("LISTEN needs a connection of its own; the data source is not Hikari");
    }

    private void pause() {
        try {
            Thread.sleep(RECONNECT_BACKOFF);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void start() {
        if (!changes.crossesReplicas()) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name("standing-listener").start(this::run);
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

    /** Listens before the web server takes calls, and until after it stopped. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }
}
