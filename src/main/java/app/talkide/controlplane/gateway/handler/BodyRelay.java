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

    /**
     * Returns false if the worker went away before the end. {@code watched} is told of every read, so an
     * upstream that goes silent mid-body is cut off as a silent stream is.
     */
    static boolean relay(
            InputStream upstream,
            ClientOutput client,
            @Nullable JsonUsageScanner scanner,
            StallWatchdog.Watched watched)
            throws IOException {
        byte[] buffer = new byte[16 * 1024];
        boolean clientThere = true;
        int read;
        while ((read = upstream.read(buffer)) >= 0) {
            watched.touched();
            if (scanner != null) {
                scanner.feed(buffer, 0, read);
            }
            if (clientThere) {
                try {
                    client.send(buffer, 0, read);
                } catch (ClientGone gone) {
                    clientThere = false;
                    if (scanner == null) {
                        return false;
                    }
                }
            }
        }
        return clientThere;
    }
}
