package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.metering.JsonUsageScanner;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/**
 * Relays a response body that is not an event stream (a JSON answer, an error) unchanged, chunk by
 * chunk, feeding a usage scanner on the way when one is given. If the worker goes away, the rest is
 * still read (it is already generated and paid for upstream) so the usage can be billed.
 */
final class BodyRelay {

    private BodyRelay() {}

    /** Relays without holding anything back (bodies that settle nothing: upstream errors, count_tokens). */
    static boolean relay(
            InputStream upstream,
            ClientOutput client,
            @Nullable JsonUsageScanner scanner,
            StallWatchdog.Watched watched)
            throws IOException {
        return relay(upstream, client, scanner, watched, null);
    }

    /**
     * Returns false if the worker went away before the end (or {@code beforeLast} refused). {@code watched}
     * is told of every read, so an upstream that goes silent mid-body is cut off as a silent stream is.
     * With {@code beforeLast}, the body's last byte is held back until it said yes at the end: each chunk
     * goes out at once except its final byte, which goes with the next chunk, so the worker cannot have
     * a whole answer before its usage is durable, and nothing else waits.
     */
    static boolean relay(
            InputStream upstream,
            ClientOutput client,
            @Nullable JsonUsageScanner scanner,
            StallWatchdog.Watched watched,
            StreamRelay.@Nullable FinalBytes beforeLast)
            throws IOException {
        byte[] buffer = new byte[16 * 1024 + 1];
        int held = 0; // 1 when buffer[0] is the previous chunk's last byte, not yet sent
        boolean clientThere = true;
        int read;
        while ((read = upstream.read(buffer, 1, buffer.length - 1)) >= 0) {
            watched.touched();
            if (scanner != null) {
                scanner.feed(buffer, 1, read);
            }
            if (!clientThere || read == 0) {
                continue;
            }
            int from = 1 - held;
            int length = held + read - (beforeLast == null ? 0 : 1);
            try {
                client.send(buffer, from, length);
            } catch (ClientGone gone) {
                clientThere = false;
                if (scanner == null) {
                    return false;
                }
                continue;
            }
            if (beforeLast != null) {
                buffer[0] = buffer[read];
                held = 1;
            }
        }
        if (clientThere && held == 1) {
            if (!beforeLast.commit()) {
                return false;
            }
            try {
                client.end(buffer, 0, 1);
            } catch (ClientGone gone) {
                return false;
            }
        }
        return clientThere;
    }
}
