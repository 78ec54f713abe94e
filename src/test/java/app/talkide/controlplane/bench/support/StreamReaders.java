package app.talkide.controlplane.bench.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Many browser streams read by a few selector threads: one read per socket that has bytes, however many
 * events they hold, and no thread per stream. The harness shares two cores with the server it measures,
 * so what it spends per event is taken from the server.
 */
public final class StreamReaders implements AutoCloseable {

    private final List<Loop> loops = new ArrayList<>();
    private int next;

    public StreamReaders(int threads) throws IOException {
        for (int i = 0; i < threads; i++) {
            loops.add(new Loop(i));
        }
    }

    /**
     * Sends {@code request} (a whole HTTP/1.1 GET), reads the response head (status 200 or an exception),
     * and from then on notes the latency of every event with an append time in microseconds.
     */
    public Stream open(InetSocketAddress address, String request, int expected) throws IOException {
        SocketChannel channel = SocketChannel.open(address);
        channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
        Stream stream = new Stream(channel, expected);
        ByteBuffer head = ByteBuffer.allocate(8_192);
        int headEnd;
        while ((headEnd = headEnd(head)) < 0) {
            if (!head.hasRemaining() || channel.read(head) < 0) {
                channel.close();
                throw new IOException("no response head: " + text(head, head.position()));
            }
        }
        if (!text(head, 12).startsWith("HTTP/1.1 200")) {
            channel.close();
            throw new IOException(text(head, headEnd));
        }
        stream.arrived(head.array(), headEnd, head.position() - headEnd);
        channel.configureBlocking(false);
        Loop loop = loops.get(next++ % loops.size());
        loop.pending.add(stream);
        loop.selector.wakeup();
        return stream;
    }

    @Override
    public void close() throws IOException {
        for (Loop loop : loops) {
            loop.thread.interrupt();
            loop.selector.close();
        }
    }

    public static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    private static int headEnd(ByteBuffer head) {
        byte[] bytes = head.array();
        for (int i = 3; i < head.position(); i++) {
            if (bytes[i - 3] == '\r' && bytes[i - 2] == '\n' && bytes[i - 1] == '\r' && bytes[i] == '\n') {
                return i + 1;
            }
        }
        return -1;
    }

    private static String text(ByteBuffer buffer, int length) {
        return new String(buffer.array(), 0, Math.min(length, buffer.position()), StandardCharsets.ISO_8859_1);
    }

    /** One browser stream: the latency of each event it got, in microseconds, in arrival order. */
    public static final class Stream {
        public final long[] latencies;
        private final SocketChannel channel;
        private final TimestampScanner scanner = new TimestampScanner(this::timestamp);
        private volatile int received;
        private volatile int reads;
        private volatile boolean ended;
        private long now;

        Stream(SocketChannel channel, int expected) {
            this.channel = channel;
            this.latencies = new long[expected];
        }

        public int received() {
            return received;
        }

        /** Reads that returned bytes: how many events arrive together shows how well the server coalesces. */
        public int reads() {
            return reads;
        }

        /** The server closed or cut the connection. */
        public boolean ended() {
            return ended;
        }

        void arrived(byte[] bytes, int offset, int length) {
            now = micros();
            scanner.scan(bytes, offset, length);
        }

        private void timestamp(long appended) {
            int n = received;
            if (n < latencies.length) {
                latencies[n] = now - appended;
                received = n + 1;
            }
        }

        void end() {
            ended = true;
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        public void close() {
            end();
        }
    }

    private static final class Loop {
        final Selector selector;
        final ConcurrentLinkedQueue<Stream> pending = new ConcurrentLinkedQueue<>();
        final Thread thread;
        final ByteBuffer buffer = ByteBuffer.allocate(256 * 1024);

        Loop(int index) throws IOException {
            selector = Selector.open();
            thread = Thread.ofPlatform().daemon().name("stream-reader-" + index).start(this::run);
        }

        private void run() {
            try {
                while (!Thread.currentThread().isInterrupted() && selector.isOpen()) {
                    selector.select();
                    for (Stream stream; (stream = pending.poll()) != null; ) {
                        stream.channel.register(selector, SelectionKey.OP_READ, stream);
                    }
                    for (SelectionKey key : selector.selectedKeys()) {
                        read((Stream) key.attachment(), key);
                    }
                    selector.selectedKeys().clear();
                }
            } catch (IOException | RuntimeException closed) {
                // the harness closed the selector
            }
        }

        private void read(Stream stream, SelectionKey key) {
            try {
                int n;
                do {
                    // One read per ready socket: a second one would mostly return nothing, a syscall wasted.
                    n = stream.channel.read(buffer.clear());
                    if (n > 0) {
                        stream.reads++;
                        stream.arrived(buffer.array(), 0, n);
                    }
                } while (n == buffer.capacity());
                if (n < 0 || stream.scanner.ended()) {
                    key.cancel();
                    stream.end();
                }
            } catch (IOException reset) {
                key.cancel();
                stream.end();
            }
        }
    }
}
