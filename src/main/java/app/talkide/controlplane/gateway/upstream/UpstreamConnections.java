package app.talkide.controlplane.gateway.upstream;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keep-alive connections to the upstream, per origin. A call takes the most recently used idle
 * connection that is still open, or opens one; a body read to its end gives it back. Taking and giving
 * back cost a deque operation and one non-blocking read (the liveness probe), where the JDK client
 * registered every returned connection with its selector and took it off again, the largest single
 * cost of a gateway call in its profile.
 *
 * <p>No background thread: connections idle past {@link #KEEP_ALIVE} are closed when met, at either end
 * of the deque, and at most {@link #MAX_IDLE} wait per origin, so a burst's connections do not linger.
 */
final class UpstreamConnections implements AutoCloseable {

    /** Below the keep-alive timeout of common servers (Node 5 s is probed, not relied on). */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(30);

    static final int MAX_IDLE = 128;

    private final Map<UpstreamOrigin, Idle> idle = new ConcurrentHashMap<>();
    private final Duration connectTimeout;
    private final SSLSocketFactory tls;
    private volatile boolean closed;

    UpstreamConnections(Duration connectTimeout, SSLSocketFactory tls) {
        this.connectTimeout = connectTimeout;
        this.tls = tls;
    }

    /** An open connection to {@code origin}: an idle one that passes the probe, else a new one. */
    UpstreamConnection take(UpstreamOrigin origin) throws IOException {
        Idle waiting = idle.get(origin);
        if (waiting != null) {
            long now = System.nanoTime();
            UpstreamConnection connection;
            while ((connection = waiting.newest()) != null) {
                if (now - connection.idleSince() < KEEP_ALIVE.toNanos() && connection.stillOpen()) {
                    return connection;
                }
                connection.close();
            }
        }
        return UpstreamConnection.open(origin, connectTimeout, tls);
    }

    void release(UpstreamConnection connection) {
        if (closed) {
            connection.close();
            return;
        }
        long now = System.nanoTime();
        connection.idleFrom(now);
        Idle waiting = idle.computeIfAbsent(connection.origin, origin -> new Idle());
        waiting.add(connection);
        // The oldest waits at the far end: drop it if it is past its time or beyond the bound.
        UpstreamConnection oldest = waiting.oldestIf(
                candidate -> now - candidate.idleSince() >= KEEP_ALIVE.toNanos() || waiting.count() > MAX_IDLE);
        if (oldest != null) {
            oldest.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        idle.values().forEach(waiting -> {
            UpstreamConnection connection;
            while ((connection = waiting.newest()) != null) {
                connection.close();
            }
        });
    }

    /** One origin's idle connections, newest first, with a count (a deque's own size() walks it). */
    private static final class Idle {

        private final ConcurrentLinkedDeque<UpstreamConnection> deque = new ConcurrentLinkedDeque<>();
        private final AtomicInteger count = new AtomicInteger();

        void add(UpstreamConnection connection) {
            deque.offerFirst(connection);
            count.incrementAndGet();
        }

        @Nullable
        UpstreamConnection newest() {
            UpstreamConnection connection = deque.pollFirst();
            if (connection != null) {
                count.decrementAndGet();
            }
            return connection;
        }

        @Nullable
        UpstreamConnection oldestIf(Predicate<UpstreamConnection> drop) {
            UpstreamConnection oldest = deque.peekLast();
            if (oldest != null && drop.test(oldest) && deque.removeLastOccurrence(oldest)) {
                count.decrementAndGet();
                return oldest;
            }
            return null;
        }

        int count() {
            return count.get();
        }
    }
}
