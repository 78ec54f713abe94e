package app.talkide.controlplane.system;

import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.PostgresOnly;
import app.talkide.controlplane.support.TestDatabase;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A LISTEN connection that dies silently (the peer vanishes, no reset, as behind a dropped NAT entry or
 * a failed-over database) is noticed within a bound and reopened, instead of holding cross-replica
 * notifications for the kernel's retransmission time (about 15 minutes).
 */
@PostgresOnly
class PostgresListenerDeadConnectionTest {

    @Test
    void aConnectionThatGoesSilentIsReopenedWithinTheSocketTimeout() throws Exception {
        Duration poll = Duration.ofSeconds(1);
        AtomicInteger listened = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        try (SilenceableProxy proxy = new SilenceableProxy(TestDatabase.freshPostgresSchema());
                HikariDataSource dataSource = proxy.dataSource()) {
            PostgresListener listener = new PostgresListener(
                    "listener-test",
                    "test notifications",
                    new NotifyChannel("talkide_listener_test", true),
                    dataSource,
                    poll,
                    new FixedBackOff(100),
                    new PostgresListener.Handler() {
                        @Override
                        public void listening(boolean again) {
                            listened.incrementAndGet();
                        }

                        @Override
                        public void heard(@Nullable String payload) {}

                        @Override
                        public void lost() {
                            lost.incrementAndGet();
                        }
                    });
            listener.start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> listened.get() == 1);
                proxy.silenceOpenConnections();
                // The check after a quiet poll times out after socketTimeout(poll) = 7 s, then a new connection.
                await().atMost(PostgresListener.socketTimeout(poll).plusSeconds(15))
                        .until(() -> lost.get() >= 1 && listened.get() >= 2);
            } finally {
                listener.stop();
            }
        }
    }

    /** A TCP proxy to PostgreSQL whose open connections can be made to swallow every byte, silently. */
    static final class SilenceableProxy implements AutoCloseable {

        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final URI target;
        private final String jdbcUrl;
        private final String user;
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private volatile boolean silenced;
        private volatile int silencedUpTo;

        SilenceableProxy(java.util.Map<String, Object> database) throws IOException {
            String url = (String) database.get("spring.datasource.url");
            target = URI.create(url.substring("jdbc:".length()));
            jdbcUrl = url.replace(target.getHost() + ":" + target.getPort(), "127.0.0.1:" + server.getLocalPort());
            user = (String) database.get("spring.datasource.username");
            Thread.ofVirtual().start(this::accept);
        }

        HikariDataSource dataSource() {
            HikariDataSource dataSource = new HikariDataSource();
            dataSource.setJdbcUrl(jdbcUrl);
            dataSource.setUsername(user);
            return dataSource;
        }

        void silenceOpenConnections() {
            silencedUpTo = open.size();
            silenced = true;
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = server.accept();
                    Socket upstream = new Socket(target.getHost(), target.getPort());
                    int index = open.size();
                    open.add(client);
                    open.add(upstream);
                    Thread.ofVirtual().start(() -> pump(client, upstream, index));
                    Thread.ofVirtual().start(() -> pump(upstream, client, index));
                }
            } catch (IOException closed) {
                // the proxy is closed
            }
        }

        private void pump(Socket from, Socket to, int index) {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) != -1) {
                    if (silenced && index < silencedUpTo) {
                        continue; // swallowed: neither side hears of it, as with a vanished peer
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException closed) {
                // one side hung up
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : open) {
                socket.close();
            }
        }
    }
}
