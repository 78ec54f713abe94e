package app.talkide.controlplane.bench.support;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A closed-loop HTTP/1.1 load generator: N clients, each on its own keep-alive connection, each sending
 * its next request as soon as the previous answer is read. Raw sockets and a minimal response reader
 * keep the generator's own CPU cost low, which matters when it shares two cores with the server.
 */
public final class ClosedLoopLoad {

    private final URI base;
    private final int clients;
    private final Thread.Builder clientThreads;

    /**
     * Clients on virtual threads: 16 platform threads on two cores shared with the server make the kernel
     * preempt clients mid-request, and that scheduling delay, not the server, becomes the measured tail.
     */
    public ClosedLoopLoad(URI base, int clients) {
        this(base, clients, Thread.ofVirtual());
    }

    /** Clients on threads of the given kind (e.g. {@code Thread.ofPlatform()}, one OS thread each). */
    public ClosedLoopLoad(URI base, int clients, Thread.Builder threads) {
        this.base = base;
        this.clients = clients;
        this.clientThreads = threads;
    }

    /**
     * Runs for warm-up plus measurement; only requests that start and end inside the measurement window
     * are recorded. The clients keep the time themselves and stop at its end.
     */
    public Result run(IntFunction<byte[]> requestForClient, Duration warmup, Duration measurement) throws Exception {
        long recordFrom = System.nanoTime() + warmup.toNanos();
        Window window = new Window(recordFrom, recordFrom + measurement.toNanos());
        List<Client> all = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            all.add(new Client(requestForClient.apply(i), window));
        }
        List<Thread> threads = all.stream().map(clientThreads::start).toList();
        for (Thread thread : threads) {
            thread.join(warmup.plus(measurement).plusSeconds(10));
        }
        long[] latencies = all.stream()
                .flatMapToLong(c -> Arrays.stream(c.latencies, 0, c.count))
                .sorted()
                .toArray();
        long errors = all.stream().mapToLong(c -> c.errors).sum();
        return new Result(latencies, errors, measurement.toNanos());
    }

    /** The measurement window, in {@link System#nanoTime()}. */
    private record Window(long start, long end) {

        boolean over(long now) {
            return now - end >= 0;
        }

        boolean contains(long begin, long finish) {
            return begin - start >= 0 && end - finish > 0;
        }
    }

    /** Latency figures of one run. */
    public record Result(long[] sortedLatenciesNanos, long errors, long elapsedNanos) {

        public double requestsPerSecond() {
            return sortedLatenciesNanos.length / (elapsedNanos / 1e9);
        }

        public double percentileMillis(double p) {
            if (sortedLatenciesNanos.length == 0) {
                return Double.NaN;
            }
            int index = (int)
                    Math.min(sortedLatenciesNanos.length - 1, Math.ceil(p / 100.0 * sortedLatenciesNanos.length) - 1);
            return sortedLatenciesNanos[Math.max(0, index)] / 1e6;
        }

        @Override
        public String toString() {
            return String.format(
                    "%8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  p99.9 %6.2f ms  (%d requests, %d errors)",
                    requestsPerSecond(),
                    percentileMillis(50),
                    percentileMillis(99),
                    percentileMillis(99.9),
                    sortedLatenciesNanos.length,
                    errors);
        }
    }

    private final class Client implements Runnable {
        private final byte[] request;
        private final Window window;
        long[] latencies = new long[1 << 16];
        int count;
        long errors;

        Client(byte[] request, Window window) {
            this.request = request;
            this.window = window;
        }

        @Override
        public void run() {
            while (!window.over(System.nanoTime())) {
                try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                    socket.setTcpNoDelay(true);
                    OutputStream out = socket.getOutputStream();
                    InputStream in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
                    long begin;
                    while (!window.over(begin = System.nanoTime())) {
                        out.write(request);
                        out.flush();
                        int status = HttpResponses.readAndDiscard(in);
                        long finish = System.nanoTime();
                        if (status / 100 != 2) {
                            errors++;
                        }
                        if (window.contains(begin, finish)) {
                            record(finish - begin);
                        }
                    }
                } catch (IOException e) {
                    errors++;
                }
            }
        }

        private void record(long nanos) {
            if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = nanos;
        }
    }

    /** Builds a raw HTTP/1.1 request. */
    public static byte[] request(String method, URI base, String path, String body, String... headers) {
        StringBuilder text = new StringBuilder()
                .append(method)
                .append(' ')
                .append(path)
                .append(" HTTP/1.1\r\n")
                .append("Host: ")
                .append(base.getHost())
                .append(':')
                .append(base.getPort())
                .append("\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            text.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            text.append("Content-Length: ").append(payload.length).append("\r\n");
        }
        text.append("\r\n");
        byte[] head = text.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] all = Arrays.copyOf(head, head.length + payload.length);
        System.arraycopy(payload, 0, all, head.length, payload.length);
        return all;
    }
}
