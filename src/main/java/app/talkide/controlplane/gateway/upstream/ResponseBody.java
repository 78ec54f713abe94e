package app.talkide.controlplane.gateway.upstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A response body, framed as RFC 9112 §6.3 says: chunked, a Content-Length, or until the connection
 * closes. Read to its end, the connection goes back to the pool if it may carry another request; closed
 * before its end (the worker left, the stream stalled), the connection is closed, which cancels the
 * call upstream. {@link #close()} may come from another thread while one reads: the read then fails.
 */
abstract class ResponseBody extends InputStream {

    private static final int READING = 0;
    private static final int ENDED = 1;
    private static final int CLOSED = 2;

    final UpstreamConnection connection;
    private final UpstreamConnections pool;
    private final boolean reusable;
    private final AtomicInteger state = new AtomicInteger(READING);

    ResponseBody(UpstreamConnection connection, UpstreamConnections pool, boolean reusable) {
        this.connection = connection;
        this.pool = pool;
        this.reusable = reusable;
    }

    /** The body that follows {@code head} on {@code connection} (the request was a POST). */
    static ResponseBody of(ResponseHead head, UpstreamConnection connection, UpstreamConnections pool)
            throws ProtocolException {
        if (head.status() == 204 || head.status() == 304) {
            return new FixedLength(connection, pool, head.keepAlive(), 0);
        }
        List<String> transferEncoding = head.headers().allValues("transfer-encoding");
        boolean hasLength = !head.headers().allValues("content-length").isEmpty();
        if (!transferEncoding.isEmpty()) {
            String last = transferEncoding.getLast();
            boolean chunked = last.substring(last.lastIndexOf(',') + 1)
                    .strip()
                    .toLowerCase(Locale.ROOT)
                    .equals("chunked");
            // Both framings at once is how requests get smuggled: read it chunked, then drop the connection.
            return chunked
                    ? new ChunkedBody(connection, pool, head.keepAlive() && !hasLength)
                    : new UntilClose(connection, pool);
        }
        if (hasLength) {
            return new FixedLength(connection, pool, head.keepAlive(), contentLength(head));
        }
        return new UntilClose(connection, pool);
    }

    private static long contentLength(ResponseHead head) throws ProtocolException {
        long length = -1;
        for (String value : head.headers().allValues("content-length")) {
            for (String part : value.split(",", -1)) {
                String digits = part.strip();
                if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(Character::isDigit)) {
                    throw new ProtocolException("the upstream sent an invalid Content-Length");
                }
                long parsed = Long.parseLong(digits);
                if (length >= 0 && parsed != length) {
                    throw new ProtocolException("the upstream sent conflicting Content-Length values");
                }
                length = parsed;
            }
        }
        return length;
    }

    /** The next bytes of the body, -1 at its end; may return fewer than asked, never blocks for more. */
    abstract int readBody(byte[] into, int offset, int length) throws IOException;

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        int n;
        do {
            n = read(one, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public final int read(byte[] into, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, into.length);
        int now = state.get();
        if (now == ENDED) {
            return -1;
        }
        if (now == CLOSED) {
            throw new IOException("the upstream response body was closed");
        }
        int n = readBody(into, offset, length);
        if (n < 0) {
            ended();
        }
        return n;
    }

    /** The body was read whole: its connection carries the next call, or closes if it may not. */
    final void ended() {
        if (state.compareAndSet(READING, ENDED)) {
            if (reusable && !connection.hasUnreadBytes()) {
                pool.release(connection);
            } else {
                connection.close();
            }
        }
    }

    @Override
    public final void close() {
        if (state.compareAndSet(READING, CLOSED)) {
            connection.close();
        }
    }

    private static final class FixedLength extends ResponseBody {

        private long remaining;

        FixedLength(UpstreamConnection connection, UpstreamConnections pool, boolean reusable, long length) {
            super(connection, pool, reusable);
            this.remaining = length;
            if (length == 0) {
                ended();
            }
        }

        @Override
        int readBody(byte[] into, int offset, int length) throws IOException {
            if (remaining == 0) {
                return -1;
            }
            int n = connection.read(into, offset, (int) Math.min(length, remaining));
            if (n < 0) {
                throw new EOFException("the upstream closed the connection before the body's declared length");
            }
            remaining -= n;
            if (remaining == 0) {
                ended(); // back to the pool now: the caller may never ask for the end it already has
            }
            return n;
        }
    }

    private static final class UntilClose extends ResponseBody {

        UntilClose(UpstreamConnection connection, UpstreamConnections pool) {
            super(connection, pool, false);
        }

        @Override
        int readBody(byte[] into, int offset, int length) throws IOException {
            return connection.read(into, offset, length);
        }
    }
}
