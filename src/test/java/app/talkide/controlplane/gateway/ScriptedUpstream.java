package app.talkide.controlplane.gateway;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP/1.1 upstream on a real socket whose every byte the test writes by hand: send an event, wait
 * until the client saw it, send the next; break the connection mid-event; notice when the gateway hangs
 * up. WireMock cannot pause between chosen events or tell that its client went away; this can.
 */
public final class ScriptedUpstream implements AutoCloseable {

    private final ServerSocket server;
    private final BlockingQueue<Exchange> exchanges = new LinkedBlockingQueue<>();
    private final Thread acceptor;
    private final AtomicInteger connections = new AtomicInteger();

    public ScriptedUpstream() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofVirtual().start(this::accept);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** The next request that arrived, its headers and body read. */
    public Exchange next(Duration within) throws InterruptedException {
        Exchange exchange = exchanges.poll(within.toMillis(), TimeUnit.MILLISECONDS);
        if (exchange == null) {
            throw new AssertionError("no request reached the upstream within " + within);
        }
        return exchange;
    }

    public boolean nothingArrived() {
        return exchanges.isEmpty();
    }

    /** How many connections the client opened so far. */
    public int connections() {
        return connections.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.incrementAndGet();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** Every request of one keep-alive connection, until the client closes it (or the test does). */
    private void serve(Socket socket) {
        Exchange last = null;
        try {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            for (Exchange exchange = Exchange.read(socket, in);
                    exchange != null;
                    exchange = Exchange.read(socket, in)) {
                last = exchange;
                exchanges.add(exchange);
            }
        } catch (IOException e) {
            closeQuietly(socket);
        } finally {
            if (last != null) {
                last.closedByPeer.countDown();
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        acceptor.interrupt();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** One request and the hand-written response to it. */
    public static final class Exchange {

        private final Socket socket;
        private final OutputStream out;
        private final String requestLine;
        private final Map<String, String> headers;
        private final List<String> headerLines;
        private final String body;
        private final CountDownLatch closedByPeer = new CountDownLatch(1);

        private Exchange(
                Socket socket, String requestLine, Map<String, String> headers, List<String> headerLines, String body)
                throws IOException {
            this.headerLines = List.copyOf(headerLines);
            this.socket = socket;
            this.out = socket.getOutputStream();
            this.requestLine = requestLine;
            this.headers = headers;
            this.body = body;
        }

        /** The next request on the connection, or null if the client closed it first. */
        static @Nullable Exchange read(Socket socket, InputStream in) throws IOException {
            in.mark(1);
            if (in.read() == -1) {
                return null;
            }
            in.reset();
            String requestLine = line(in);
            Map<String, String> headers = new LinkedHashMap<>();
            List<String> headerLines = new ArrayList<>();
            for (String line = line(in); !line.isEmpty(); line = line(in)) {
                headerLines.add(line);
                int colon = line.indexOf(':');
                headers.put(
                        line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        line.substring(colon + 1).strip());
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            byte[] body = in.readNBytes(length);
            return new Exchange(socket, requestLine, headers, headerLines, new String(body, StandardCharsets.UTF_8));
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) != -1 && b != '\n') {
                if (b != '\r') {
                    line.write(b);
                }
            }
            return line.toString(StandardCharsets.UTF_8);
        }

        public String requestLine() {
            return requestLine;
        }

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public String body() {
            return body;
        }

        /** The header lines exactly as they came, repeats included. */
        public List<String> headerLines() {
            return headerLines;
        }

        /** Whether the client closed this connection (it read no further request on it) within the time. */
        public boolean closedByPeer(Duration within) throws InterruptedException {
            return closedByPeer.await(within.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Status line and headers of a chunked event stream. */
        public void startEventStream() throws IOException {
            write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nrequest-id: req_scripted\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n");
        }

        /** Writes raw response text (status line, headers, any part of a body) as it is, now. */
        public void respond(String raw) throws IOException {
            write(raw);
        }

        /** Sends one chunk now. */
        public void send(String data) throws IOException {
            byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
            out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** Sends a chunk; false once the peer has closed the connection (the write fails). */
        public boolean trySend(String data) {
            try {
                send(data);
                return true;
            } catch (IOException closedByPeer) {
                return false;
            }
        }

        /** Closes the connection without a word, as an upstream's keep-alive timeout does. */
        public void closeConnection() throws IOException {
            socket.close();
        }

        public void end() throws IOException {
            write("0\r\n\r\n");
            socket.close();
        }

        /** Breaks the connection with a TCP reset, as a crashing upstream or a dropped network would. */
        public void reset() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        private void write(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }
}
