package app.talkide.controlplane.bench;

import app.talkide.controlplane.bench.support.StreamReaders;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Browser streams against {@link ConversationBenchServer} in another JVM: heap per idle stream, delivery
 * latency to many subscribers of one conversation, append → browser latency for one subscriber, and
 * sustained persistence. Latency is the browser's arrival time minus the append time written into the
 * event, both from this machine's wall clock.
 *
 * <p>Arguments: base URL, user:password, idle streams, subscribers, events/s, seconds, persistence appenders.
 */
public final class ConversationStreamBench {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30))
            .build();

    /** Two selector threads read every subscriber's stream: no thread per stream, one read per ready socket. */
    private static StreamReaders READERS;

    private static URI base;
    private static String basic;
    /** Streams authenticate with a form-login session, as browsers do: Basic would cost a bcrypt per connection. */
    private static String session;

    public static void main(String[] args) throws Exception {
        base = URI.create(args[0]);
        basic = "Basic " + Base64.getEncoder().encodeToString(args[1].getBytes(StandardCharsets.UTF_8));
        int idle = Integer.parseInt(args[2]);
        int subscribers = Integer.parseInt(args[3]);
        int rate = Integer.parseInt(args[4]);
        int seconds = Integer.parseInt(args[5]);
        int appenders = Integer.parseInt(args[6]);
        session = login(args[1].split(":")[0], args[1].split(":")[1]);
        READERS = new StreamReaders(2);

        idleStreams(idle);
        // The server's JIT compiles the streaming path during the first seconds of load: not what we measure.
        fanOut("warm-up, 100 subscribers, 1000 events/s", 100, 1000, 3);
        fanOut("one conversation, " + subscribers + " subscribers, " + rate + " events/s", subscribers, rate, seconds);
        fanOut("append → browser, one subscriber, 200 events/s", 1, 200, seconds);
        persistence(1, seconds);
        persistence(appenders, seconds);
        System.exit(0);
    }

    private static void idleStreams(int count) throws Exception {
        System.out.printf("-- opening %d idle browser streams%n", count);
        List<String> conversations = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            conversations.add(post("/api/bench/conversations"));
        }
        long before = Long.parseLong(get("/api/bench/heap"));
        ConcurrentLinkedQueue<Socket> open = new ConcurrentLinkedQueue<>();
        AtomicInteger failed = new AtomicInteger();
        Semaphore connecting = new Semaphore(200);
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < count; i++) {
                String conversation = conversations.get(i % conversations.size());
                connecting.acquire();
                pool.execute(() -> {
                    try {
                        open.add(idleStream(conversation));
                    } catch (IOException e) {
                        if (failed.getAndIncrement() == 0) {
                            System.out.println("-- first idle stream that failed: " + e.getMessage());
                        }
                    } finally {
                        connecting.release();
                    }
                });
            }
        }
        double opening = (System.nanoTime() - start) / 1e9;
        long after = Long.parseLong(get("/api/bench/heap"));
        System.out.printf(
                "== %d idle browser streams (server -Xmx512m): opened %d in %.1f s, %d failed; heap after GC %d MB → %d MB, %.1f KB per stream%n",
                count,
                open.size(),
                opening,
                failed.get(),
                before >> 20,
                after >> 20,
                (after - before) / 1024.0 / Math.max(1, open.size()));
        for (Socket socket : open) {
            socket.close();
        }
    }

    /** Opens a stream and reads until its {@code retry:} line; then leaves it idle. */
    private static Socket idleStream(String conversation) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 30_000);
        socket.getOutputStream()
                .write(("GET /api/conversations/" + conversation + "/stream HTTP/1.1\r\nHost: " + base.getHost()
                                + "\r\nCookie: " + session + "\r\nAccept: text/event-stream\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        StringBuilder seen = new StringBuilder();
        byte[] buffer = new byte[1024];
        // A refusal (404, 302 to the login page) is a whole response too: fail on it instead of waiting for
        // a retry: line that never comes.
        while (!seen.toString().contains("retry:")) {
            if (seen.indexOf("\r\n\r\n") > 0 && !seen.toString().startsWith("HTTP/1.1 200")) {
                socket.close();
                throw new IOException(seen.toString());
            }
            int n = in.read(buffer);
            if (n < 0) {
                socket.close();
                throw new IOException("closed: " + seen);
            }
            seen.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
        }
        return socket;
    }

    private static void fanOut(String title, int subscribers, int rate, int seconds) throws Exception {
        String conversation = post("/api/bench/conversations");
        int expected = rate * seconds;
        System.out.printf("-- %s for %d s: opening the streams%n", title, seconds);
        List<StreamReaders.Stream> all = new ArrayList<>();
        InetSocketAddress address = new InetSocketAddress(base.getHost(), base.getPort());
        String request = "GET /api/conversations/" + conversation + "/stream HTTP/1.1\r\nHost: " + base.getHost()
                + "\r\nCookie: " + session + "\r\nAccept: text/event-stream\r\n\r\n";
        for (int i = 0; i < subscribers; i++) {
            all.add(READERS.open(address, request, expected));
        }
        long serverCpu = Long.parseLong(get("/api/bench/cpu"));
        long harnessCpu = ConversationBenchServer.cpuNanos();
        post("/api/bench/conversations/" + conversation + "/emit?rate=" + rate + "&seconds=" + seconds);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (all.stream().anyMatch(s -> s.received() < expected && !s.ended()) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
        serverCpu = Long.parseLong(get("/api/bench/cpu")) - serverCpu;
        harnessCpu = ConversationBenchServer.cpuNanos() - harnessCpu;
        long samples = all.stream().mapToLong(StreamReaders.Stream::received).sum();
        long reads = all.stream().mapToLong(StreamReaders.Stream::reads).sum();
        long[] latencies = new long[(int) samples];
        int at = 0;
        for (StreamReaders.Stream subscriber : all) {
            int n = subscriber.received();
            System.arraycopy(subscriber.latencies, 0, latencies, at, n);
            at += n;
            subscriber.close();
        }
        Arrays.sort(latencies);
        long incomplete = all.stream().filter(s -> s.received() < expected).count();
        System.out.printf(
                "== %s: %d deliveries of %d expected, %d subscribers cut or incomplete; p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                title,
                samples,
                (long) expected * subscribers,
                incomplete,
                quantile(latencies, 0.50),
                quantile(latencies, 0.90),
                quantile(latencies, 0.99),
                latencies.length == 0 ? 0 : latencies[latencies.length - 1] / 1000.0);
        System.out.printf(
                "   CPU: server %.2f s (%.2f µs per delivery), harness %.2f s; %.1f events per read; load average %s%n",
                serverCpu / 1e9,
                serverCpu / 1e3 / Math.max(1, samples),
                harnessCpu / 1e9,
                samples / (double) Math.max(1, reads),
                loadAverage());
    }

    private static String loadAverage() {
        return String.format(
                "%.2f",
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage());
    }

    private static void persistence(int appenders, int seconds) throws Exception {
        System.out.printf("-- persistence, %d appenders for %d s%n", appenders, seconds);
        String[] result = post("/api/bench/persist?appenders=" + appenders + "&seconds=" + seconds)
                .split(" ");
        long events = Long.parseLong(result[0]);
        double elapsed = Double.parseDouble(result[1]);
        System.out.printf(
                "== persistence, %d appenders each appending one event at a time: %d events in %.1f s = %.0f events/s%n",
                appenders, events, elapsed, events / elapsed);
    }

    /** Form login as the console does it: the CSRF cookie from the login page, sent back as a form field. */
    private static String login(String user, String password) throws Exception {
        HttpResponse<String> page = HTTP.send(
                HttpRequest.newBuilder(base.resolve("/login")).GET().build(), HttpResponse.BodyHandlers.ofString());
        String csrf = cookies(page).stream()
                .filter(cookie -> cookie.startsWith("XSRF-TOKEN="))
                .map(cookie -> cookie.substring("XSRF-TOKEN=".length()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no CSRF cookie from the login page"));
        String cookies = String.join("; ", cookies(page));
        HttpResponse<String> form = HTTP.send(
                HttpRequest.newBuilder(base.resolve("/login"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", cookies)
                        .POST(HttpRequest.BodyPublishers.ofString("username=" + user + "&password=" + password
                                + "&_csrf=" + java.net.URLEncoder.encode(csrf, StandardCharsets.UTF_8)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return cookies(form).stream()
                .filter(cookie -> cookie.startsWith("JSESSIONID="))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("login answered " + form.statusCode()));
    }

    private static List<String> cookies(HttpResponse<?> response) {
        return response.headers().allValues("Set-Cookie").stream()
                .map(cookie -> cookie.split(";")[0])
                .toList();
    }

    private static double quantile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] / 1000.0;
    }

    private static String post(String path) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static String get(String path) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    private static String send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = HTTP.send(
                request.header("Authorization", basic)
                        .timeout(Duration.ofMinutes(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
