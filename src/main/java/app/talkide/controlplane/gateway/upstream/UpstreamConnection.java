package app.talkide.controlplane.gateway.upstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import jdk.net.ExtendedSocketOptions;

/**
 * One HTTP/1.1 connection to the upstream, used by one call at a time with plain blocking I/O (every
 * gateway call has a virtual thread of its own). Reads go through a small buffer the response head is
 * parsed from; body reads take what the buffer holds, else one socket read, so nothing waits for more
 * bytes than have arrived. TLS verifies the certificate and the host name, as the JDK client did.
 */
final class UpstreamConnection implements AutoCloseable {

    private static final int BUFFER_BYTES = 8 * 1024;
    private static final boolean QUICK_ACK = quickAckSupported();

    final UpstreamOrigin origin;
    private final SocketChannel channel;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final ByteBuffer probe = ByteBuffer.allocate(1);
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int position;
    private int limit;
    private long idleSince;

    private UpstreamConnection(UpstreamOrigin origin, SocketChannel channel, Socket socket) throws IOException {
        this.origin = origin;
        this.channel = channel;
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static UpstreamConnection open(UpstreamOrigin origin, Duration connectTimeout, SSLSocketFactory tls)
            throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            int timeout = (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
            channel.socket().connect(new InetSocketAddress(origin.host(), origin.port()), timeout);
            Socket socket = origin.tls() ? handshake(channel, origin, tls, timeout) : channel.socket();
            return new UpstreamConnection(origin, channel, socket);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static Socket handshake(SocketChannel channel, UpstreamOrigin origin, SSLSocketFactory tls, int timeout)
            throws IOException {
        SSLSocket socket = (SSLSocket) tls.createSocket(channel.socket(), origin.host(), origin.port(), true);
        SSLParameters parameters = socket.getSSLParameters();
        // Without this a certificate for any name would do: the JDK's HttpClient sets it, a bare socket does not.
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        parameters.setApplicationProtocols(new String[] {"http/1.1"});
        if (!origin.isIpLiteral()) {
            parameters.setServerNames(List.of(new SNIHostName(origin.host())));
        }
        socket.setSSLParameters(parameters);
        socket.setSoTimeout(timeout);
        socket.startHandshake();
        socket.setSoTimeout(0);
        return socket;
    }

    /** Sends a request: its head and body in as few writes as the transport allows. */
    void send(byte[] head, byte[] body) throws IOException {
        if (socket == channel.socket()) {
            ByteBuffer[] both = {ByteBuffer.wrap(head), ByteBuffer.wrap(body)};
            while (both[1].hasRemaining()) {
                channel.write(both);
            }
        } else {
            out.write(head);
            out.write(body);
            out.flush();
        }
        if (QUICK_ACK) {
            // Having just sent, Linux takes the connection for an interactive one and delays its ACKs by up
            // to 40 ms. An upstream that does not set TCP_NODELAY then holds its second small write (the
            // first event after the headers) until that ACK comes: the stream's first events arrive
            // together, 40 ms late. Quick ACKs for the answer avoid that; one system call per request.
            channel.setOption(ExtendedSocketOptions.TCP_QUICKACK, true);
        }
    }

    private static boolean quickAckSupported() {
        try (SocketChannel probe = SocketChannel.open()) {
            return probe.supportedOptions().contains(ExtendedSocketOptions.TCP_QUICKACK);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** A read timeout for what follows, in milliseconds; 0 waits for ever (a body's silence is watched elsewhere). */
    void readTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** One byte of the response head; EOF is an error here, since a head cannot end early. */
    int readHeadByte() throws IOException {
        if (position == limit && fill() < 0) {
            throw new EOFException("the upstream closed the connection before its response head ended");
        }
        return buffer[position++] & 0xff;
    }

    /** Up to {@code length} body bytes: what is buffered, else one read of the socket. -1 at end of stream. */
    int read(byte[] into, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (position < limit) {
            int n = Math.min(length, limit - position);
            System.arraycopy(buffer, position, into, offset, n);
            position += n;
            return n;
        }
        return in.read(into, offset, length);
    }

    private int fill() throws IOException {
        int n = in.read(buffer, 0, buffer.length);
        position = 0;
        limit = Math.max(n, 0);
        return n;
    }

    /** Whether bytes the last response did not account for are buffered: then the framing was wrong. */
    boolean hasUnreadBytes() {
        return position < limit;
    }

    void idleFrom(long nanos) {
        idleSince = nanos;
    }

    long idleSince() {
        return idleSince;
    }

    /**
     * Whether the idle connection can still carry a request: the upstream may have closed it (its own
     * keep-alive timeout), and a POST sent into a closed connection cannot safely be retried. One
     * non-blocking read answers it: nothing to read is the only good answer. Any byte means the peer
     * closed (EOF), said goodbye (a TLS alert) or broke the protocol.
     */
    boolean stillOpen() {
        try {
            channel.configureBlocking(false);
            int read;
            try {
                read = channel.read(probe.clear());
            } finally {
                channel.configureBlocking(true);
            }
            return read == 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do with it
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // already closed with the socket
        }
    }
}
