package app.talkide.controlplane.gateway.upstream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import jdk.net.ExtendedSocketOptions;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SocketChannelEndPoint;

/**
 * Jetty's client connector with quick ACKs for the answer (Linux). After a request goes out, Linux acknowledges
 * the answer's first segment late (delayed ACK, up to 40 ms). An upstream that does not set TCP_NODELAY then
 * holds its next small write (the first event after the headers) until that ACK comes, and a stream's first
 * events arrive together, 40 ms late. Asking for quick ACKs after every write avoids it: one system call per
 * request. Elsewhere the option is not offered, and the connector is Jetty's own.
 */
final class QuickAckConnector extends ClientConnector {

    static final boolean SUPPORTED = quickAckSupported();

    @Override
    protected EndPoint newEndPoint(SelectableChannel selectable, ManagedSelector selector, SelectionKey key) {
        SocketChannelEndPoint endPoint =
                new SocketChannelEndPoint((SocketChannel) selectable, selector, key, getScheduler()) {
                    @Override
                    public boolean flush(ByteBuffer... buffers) throws IOException {
                        boolean flushed = super.flush(buffers);
                        if (flushed && SUPPORTED) {
                            try {
                                getChannel().setOption(ExtendedSocketOptions.TCP_QUICKACK, true);
                            } catch (IOException closedMeanwhile) {
                                // A hint only: a socket closed under it must not turn a sent request into a failure.
                            }
                        }
                        return flushed;
                    }
                };
        endPoint.setIdleTimeout(getIdleTimeout().toMillis());
        return endPoint;
    }

    private static boolean quickAckSupported() {
        try (SocketChannel probe = SocketChannel.open()) {
            return probe.supportedOptions().contains(ExtendedSocketOptions.TCP_QUICKACK);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
