package app.talkide.controlplane.gateway.upstream;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Jetty response body whose end the reader sees only once Jetty has given the connection back to its pool.
 * Jetty tells the body's end first and returns the connection a moment later on its own thread; a call sent
 * in between finds no idle connection and opens one, and while that one connects, the next such call opens
 * yet another (the pool counts the queued call and the caller's hint as two, UpstreamClientTest saw three
 * connections for four calls). Waiting here for the exchange's end, which comes at once after the body's
 * when the request was sent whole, makes a call that follows a read body reuse its connection.
 */
final class PooledAtEndBody extends FilterInputStream {

    /**
     * Only a guard: the exchange ends late only when the upstream answered before it took the whole request,
     * and then the reader sees the end at most this much later.
     */
    private static final long EXCHANGE_END_WAIT_MILLIS = 1_000;

    private final CountDownLatch exchangeEnded;

    PooledAtEndBody(InputStream body, CountDownLatch exchangeEnded) {
        super(body);
        this.exchangeEnded = exchangeEnded;
    }

    @Override
    public int read() throws IOException {
        int read = super.read();
        if (read == -1) {
            awaitExchangeEnd();
        }
        return read;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int read = super.read(buffer, offset, length);
        if (read == -1) {
            awaitExchangeEnd();
        }
        return read;
    }

    private void awaitExchangeEnd() throws InterruptedIOException {
        try {
            exchangeEnded.await(EXCHANGE_END_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted at the end of the upstream's body");
        }
    }
}
