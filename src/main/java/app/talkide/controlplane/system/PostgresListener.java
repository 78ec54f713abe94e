package app.talkide.controlplane.system;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A PostgreSQL LISTEN on one channel, on a virtual thread of its own, over a dedicated connection (not
 * from the pool, which it would hold forever). A quiet connection is checked with {@code select 1}, since a
 * dead one would wait silently forever; a broken one is reopened after the backoff. Notifications sent
 * while no LISTEN was in effect are lost, which is why the handler hears of every (re)connect.
 *
 * <p>A bean of its own: it listens before the web server takes calls and until after it stopped, and
 * only where the channel crosses replicas (on H2 there is nobody else to hear).
 */
public final class PostgresListener implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PostgresListener.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** How long one read may wait: a quiet poll plus slack for the check that follows it. */
    static Duration socketTimeout(Duration poll) {
        return Duration.ofSeconds(poll.multipliedBy(2).toSeconds() + 5);
    }

    /** What the listener tells its owner, on the listening thread. */
    public interface Handler {

        /** LISTEN took effect; {@code again} when an earlier attempt came first (notifications may be lost). */
        void listening(boolean again);

        /** One notification's payload. */
        void heard(@Nullable String payload);

        /** The connection failed or broke; a reconnect follows after the backoff. */
        default void lost() {}
    }

    private final String name;
    private final String purpose;
    private final NotifyChannel channel;
    private final DataSource dataSource;
    private final Duration poll;
    private final BackOff reconnect;
    private final Handler handler;
    private volatile boolean running;
    private volatile @Nullable Thread thread;
    private volatile @Nullable Connection connection;

    /**
     * @param name the thread's name; the connection's {@code ApplicationName} is {@code talkide-<name>}
     * @param purpose what is listened for, for the log ("conversation events")
     * @param poll how long to wait for a notification before checking the connection is alive
     */
    public PostgresListener(
            String name,
            String purpose,
            NotifyChannel channel,
            DataSource dataSource,
            Duration poll,
            BackOff reconnect,
            Handler handler) {
        this.name = name;
        this.purpose = purpose;
        this.channel = channel;
        this.dataSource = dataSource;
        this.poll = poll;
        this.reconnect = reconnect;
        this.handler = handler;
    }

    @Override
    public void start() {
        if (!channel.crossesReplicas()) {
            return;
        }
        running = true;
        thread = Thread.ofVirtual().name(name).start(this::run);
    }

    /** Closes the connection, which ends a wait for notifications at once. */
    @Override
    public void stop() {
        running = false;
        closeConnection();
        Thread stopping = thread;
        if (stopping != null) {
            stopping.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }

    /** Breaks the connection as a network fault would (failover tests). */
    public void breakConnection() {
        closeConnection();
    }

    private void run() {
        boolean again = false;
        BackOffExecution backOff = reconnect.start();
        while (running) {
            try (Connection listening = open()) {
                connection = listening;
                try (Statement statement = listening.createStatement()) {
                    statement.execute("listen \"" + channel.name() + "\"");
                }
                handler.listening(again);
                again = true;
                backOff = reconnect.start();
                listen(listening.unwrap(PGConnection.class), listening);
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                log.warn("Listening for {} failed ({}); reconnecting", purpose, e.getMessage());
                again = true;
                handler.lost();
                pause(backOff.nextBackOff());
            }
        }
    }

    private void listen(PGConnection pg, Connection listening) throws SQLException {
        while (running) {
            PGNotification[] notifications = pg.getNotifications((int) poll.toMillis());
            if (notifications == null || notifications.length == 0) {
                try (Statement statement = listening.createStatement()) {
                    statement.execute("select 1");
                }
                continue;
            }
            for (PGNotification notification : notifications) {
                handler.heard(notification.getParameter());
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
            credentials.setProperty("ApplicationName", "talkide-" + name);
            // A connection that died silently (a peer gone without a reset) would hold a read for the
            // kernel's retransmission time, about 15 minutes, and every notification meanwhile: reads
            // time out instead, so the check after a quiet poll fails within a bound and a reconnect follows.
            credentials.setProperty("connectTimeout", Long.toString(CONNECT_TIMEOUT.toSeconds()));
            credentials.setProperty(
                    "socketTimeout", Long.toString(socketTimeout(poll).toSeconds()));
            credentials.setProperty("tcpKeepAlive", "true");
            return DriverManager.getConnection(hikari.getJdbcUrl(), credentials);
        }
        throw new SQLException("LISTEN needs a connection of its own; the data source is not Hikari");
    }

    private void closeConnection() {
        Connection open = connection;
        if (open != null) {
            try {
                open.close();
            } catch (SQLException ignored) {
                // closing is all we wanted
            }
        }
    }

    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
