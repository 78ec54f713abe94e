package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.jspecify.annotations.Nullable;

/**
 * An absolute deadline for reading one request body. Jetty's idle timeout restarts on every byte, so a
 * client sending a byte every few minutes could hold its claim on the in-flight limit for good; before
 * each read the connection's idle timeout is cut to the time left, and put back once the body is read.
 */
final class ReadDeadline {

    private final long deadlineNanos;
    private final Duration timeout;
    private final @Nullable EndPoint endPoint;
    private final long originalIdleMillis;

    private ReadDeadline(Duration timeout, @Nullable EndPoint endPoint) {
        this.timeout = timeout;
        this.deadlineNanos = System.nanoTime() + timeout.toNanos();
        this.endPoint = endPoint;
        this.originalIdleMillis = endPoint == null ? 0 : endPoint.getIdleTimeout();
    }

    static ReadDeadline start(HttpServletRequest request, Duration timeout) {
        return new ReadDeadline(timeout, endPoint(request));
    }

    private static @Nullable EndPoint endPoint(HttpServletRequest request) {
        try {
            return ServletContextRequest.getServletContextRequest(request)
                    .getConnectionMetaData()
                    .getConnection()
                    .getEndPoint();
        } catch (IllegalStateException | NullPointerException notJetty) {
            return null; // another container or a mock request: the deadline is checked between reads only
        }
    }

    /** Before a read: fails once the deadline passed, else lets the read wait no longer than what is left. */
    void beforeRead() throws GatewayError {
        long leftNanos = deadlineNanos - System.nanoTime();
        if (leftNanos <= 0) {
            throw timedOut();
        }
        // Rounded up: an idle timeout cut to the truncated milliseconds fired just before the deadline, and
        // the failed read then looked like the client breaking off (502) instead of the deadline (408).
        long leftMillis = TimeUnit.NANOSECONDS.toMillis(leftNanos + TimeUnit.MILLISECONDS.toNanos(1) - 1);
        if (endPoint != null) {
            endPoint.setIdleTimeout(originalIdleMillis > 0 ? Math.min(originalIdleMillis, leftMillis) : leftMillis);
        }
    }

    boolean passed() {
        return System.nanoTime() - deadlineNanos >= 0;
    }

    GatewayError timedOut() {
        return new GatewayError(
                408,
                "timeout_error",
                "The request body did not arrive within " + timeout.toSeconds() + " s; send it again.");
    }

    /** The connection keeps its own idle timeout for the rest of the exchange and the next one. */
    void restore() {
        if (endPoint != null) {
            endPoint.setIdleTimeout(originalIdleMillis);
        }
    }
}
