package app.talkide.controlplane.bench;

import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.budget.BudgetDecision;
import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.UsageRecord;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Load harness for the gateway: the same fast local upstream called directly and through the
 * gateway in one run, with budget reservations on PostgreSQL. Prints time to first byte at 1 and 16
 * clients, throughput at 16 clients, a zero-buffering check and 1,000 concurrent open streams.
 * Run with {@code scripts/bench-gateway.sh} (which gives this JVM a 512 MB heap).
 *
 * <p>Arguments: {@code [requests at 1 client] [seconds per 16-client run] [open streams]}, default
 * {@code 2000 10 1000}.
 */
public final class GatewayLoadHarness {

    private static final Pattern STAMP = Pattern.compile("t=(\\d+)");

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final ScheduledThreadPoolExecutor watchdog = deadlines();
    private final byte[] body = requestBody();
    private final URI direct;
    private final URI gateway;
    private final ConfigurableApplicationContext app;
    private final Conversation conversation;

    private GatewayLoadHarness(BenchUpstream upstream, ConfigurableApplicationContext app) {
        this.app = app;
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        this.direct = URI.create(upstream.baseUrl() + "/v1/messages?beta=true");
        this.gateway = URI.create("http://127.0.0.1:" + port + "/api/internal/gateway/anthropic/v1/messages?beta=true");
        this.conversation = Fixtures.conversation(app, Fixtures.tenantEnvironment(app), "bench-user");
    }

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int streams = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        try (BenchUpstream upstream = new BenchUpstream();
                ConfigurableApplicationContext app = start(upstream)) {
            GatewayLoadHarness harness = new GatewayLoadHarness(upstream, app);
            System.out.printf(
                    "Gateway load harness: %d cores, max heap %d MB, database %s%n",
                    Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().maxMemory() >> 20,
                    app.getEnvironment().getProperty("spring.datasource.url").replaceAll("\\?.*", ""));
            harness.warmUp(Math.min(1500, requests));
            harness.reservations();
            harness.oneClient(requests);
            harness.sixteenClients(seconds);
            harness.zeroBuffering();
            harness.openStreams(upstream, streams);
        }
        System.exit(0);
    }

    private static ConfigurableApplicationContext start(BenchUpstream upstream) throws IOException {
        Map<String, Object> properties = new HashMap<>(TestDatabase.freshPostgresSchema());
        properties.put("server.port", "0");
        properties.put(
                "talkide.data-dir", Files.createTempDirectory("talkide-bench-").toString());
        properties.put("talkide.gateway.api-key", "sk-bench-local");
        properties.put("talkide.gateway.upstream-url", upstream.baseUrl());
        properties.put("talkide.budget.default-limit-micros", Long.toString(Long.MAX_VALUE / 4));
        properties.put("talkide.budget.fair-use.max-concurrent", "100000");
        properties.put("talkide.budget.fair-use.requests-per-minute", "100000000");
        properties.put("talkide.budget.fair-use.tokens-per-hour", Long.toString(Long.MAX_VALUE / 4));
        properties.put("spring.datasource.hikari.maximum-pool-size", "16");
        properties.put("logging.level.root", "WARN");
        // As command-line arguments: they outrank application.yaml, default properties would not.
        return new SpringApplicationBuilder(ControlPlaneApplication.class)
                .run(properties.entrySet().stream()
                        .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                        .toArray(String[]::new));
    }

    private void warmUp(int calls) throws Exception {
        String token = token();
        for (int i = 0; i < calls; i++) {
            call(direct, token, Map.of());
            call(gateway, token, Map.of());
        }
    }

    /** The budget's part of every call: reserve and settle, measured alone against the same database. */
    private void reservations() {
        UserBudgetService budgets = app.getBean(UserBudgetService.class);
        List<Long> reserve = new ArrayList<>();
        List<Long> settle = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            long start = System.nanoTime();
            var decision = (BudgetDecision.Reserved) budgets.reserveSlot("bench-budget");
            budgets.reserveEstimate(decision.reservation(), 100);
            long reserved = System.nanoTime();
            budgets.settle(
                            decision.reservation(),
                            new UsageRecord(
                                    "gw_bench",
                                    "bench",
                                    "dev",
                                    conversation.id(),
                                    "bench-budget",
                                    "messages",
                                    "m",
                                    "opus",
                                    UsageRecord.TokenCounts.NONE,
                                    100,
                                    CallOutcome.COMPLETED,
                                    200,
                                    java.time.Instant.now(),
                                    Duration.ZERO,
                                    Duration.ZERO))
                    .join();
            reserve.add(reserved - start);
            settle.add(System.nanoTime() - reserved);
        }
        System.out.printf(
                "Budget on its own, 500 calls: reserve median %.2f ms (p99 %.2f ms), settle median %.2f ms (p99 %.2f ms)%n",
                ms(percentile(reserve, 50)),
                ms(percentile(reserve, 99)),
                ms(percentile(settle, 50)),
                ms(percentile(settle, 99)));
    }

    /** Interleaved direct and gateway calls, one at a time, so drift on a shared machine hits both alike. */
    private void oneClient(int requests) throws Exception {
        List<Long> viaDirect = new ArrayList<>();
        List<Long> viaGateway = new ArrayList<>();
        String token = token();
        for (int i = 0; i < requests; i++) {
            viaDirect.add(call(direct, token, Map.of()));
            viaGateway.add(call(gateway, token, Map.of()));
        }
        System.out.printf(
                "1 client, %d calls each: time to first byte median direct %.2f ms, gateway %.2f ms -> added median"
                        + " %.2f ms; p99 direct %.2f ms, gateway %.2f ms -> added p99 %.2f ms%n",
                requests,
                ms(percentile(viaDirect, 50)),
                ms(percentile(viaGateway, 50)),
                ms(percentile(viaGateway, 50) - percentile(viaDirect, 50)),
                ms(percentile(viaDirect, 99)),
                ms(percentile(viaGateway, 99)),
                ms(percentile(viaGateway, 99) - percentile(viaDirect, 99)));
        gatewayMetrics("1 client");
    }

    private void gatewayMetrics(String phase) {
        var registry = app.getBean(io.micrometer.core.instrument.MeterRegistry.class);
        var before = registry.get("talkide.gateway.overhead")
                .tag("phase", "before_upstream")
                .timer();
        var relay =
                registry.get("talkide.gateway.overhead").tag("phase", "relay").timer();
        var arrival =
                registry.get("talkide.gateway.overhead").tag("phase", "arrival").timer();
        var budget =
                registry.get("talkide.gateway.overhead").tag("phase", "budget").timer();
        var firstByte = registry.get("talkide.gateway.first.byte").timer();
        System.out.printf(
                "  gateway's own metrics, cumulative to %s: headers to controller (container, security, token) mean"
                        + " %.2f ms; controller to upstream call mean %.2f ms (budget reservation %.2f ms); upstream"
                        + " headers to first byte out mean %.2f ms; controller to first byte out mean %.2f ms%n",
                phase,
                arrival.mean(TimeUnit.MILLISECONDS),
                before.mean(TimeUnit.MILLISECONDS),
                budget.mean(TimeUnit.MILLISECONDS),
                relay.mean(TimeUnit.MILLISECONDS),
                firstByte.mean(TimeUnit.MILLISECONDS));
    }

    private void sixteenClients(int seconds) throws Exception {
        Run viaDirect = run(direct, 16, seconds);
        Run viaGateway = run(gateway, 16, seconds);
        System.out.printf(
                "16 clients, %d s each: direct %.0f req/s, gateway %.0f req/s (%.0f %% of direct); time to first byte"
                        + " median direct %.2f ms, gateway %.2f ms -> added median %.2f ms; failures %d%n",
                seconds,
                viaDirect.rate(),
                viaGateway.rate(),
                100 * viaGateway.rate() / viaDirect.rate(),
                ms(percentile(viaDirect.ttfb(), 50)),
                ms(percentile(viaGateway.ttfb(), 50)),
                ms(percentile(viaGateway.ttfb(), 50) - percentile(viaDirect.ttfb(), 50)),
                viaDirect.failures() + viaGateway.failures());
        gatewayMetrics("16 clients");
    }

    /** Each client is a worker of its own user, as concurrent calls of one user are few (fair use). */
    private Run run(URI target, int clients, int seconds) throws Exception {
        List<String> tokens = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Conversation own = Fixtures.conversation(app, conversation.tenantEnvironment(), "bench-user-" + c);
            tokens.add(app.getBean(WorkerTokenIssuer.class).issue(own.scope()).token());
        }
        ConcurrentLinkedQueue<Long> ttfb = new ConcurrentLinkedQueue<>();
        AtomicInteger failures = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long start = System.nanoTime();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                String token = tokens.get(c);
                threads.submit(() -> {
                    while (System.nanoTime() < end) {
                        try {
                            ttfb.add(call(target, token, Map.of()));
                        } catch (Exception e) {
                            failures.incrementAndGet();
                        }
                    }
                });
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new Run(new ArrayList<>(ttfb), ttfb.size() / elapsed, failures.get());
    }

    /** Each delta carries the upstream's send time; its delay to the client shows any holding back. */
    private void zeroBuffering() throws Exception {
        int gapMillis = 10;
        List<Long> delays = new ArrayList<>();
        String token = token();
        for (int stream = 0; stream < 20; stream++) {
            HttpResponse<InputStream> response = client.send(
                    request(gateway, token, Map.of("x-stainless-bench-gap-ms", Integer.toString(gapMillis))),
                    HttpResponse.BodyHandlers.ofInputStream());
            StringBuilder pending = new StringBuilder();
            byte[] buffer = new byte[8192];
            try (InputStream in = response.body()) {
                int n;
                while ((n = in.read(buffer)) != -1) {
                    long arrived = System.nanoTime();
                    pending.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    int cut;
                    while ((cut = pending.indexOf("\n\n")) >= 0) {
                        Matcher stamp = STAMP.matcher(pending.substring(0, cut));
                        if (stamp.find()) {
                            delays.add(arrived - Long.parseLong(stamp.group(1)));
                        }
                        pending.delete(0, cut + 2);
                    }
                }
            }
        }
        long max = delays.stream().mapToLong(Long::longValue).max().orElseThrow();
        long gap = TimeUnit.MILLISECONDS.toNanos(gapMillis);
        long late = delays.stream().filter(delay -> delay >= gap).count();
        // A gateway that held an event until the next arrived would delay every one of them by the gap.
        System.out.printf(
                "Zero buffering: %d deltas sent %d ms apart through the gateway; delay from upstream send to worker"
                        + " receipt median %.2f ms, p99 %.2f ms, max %.2f ms; %d of %d (%.1f %%) delayed by a gap or more"
                        + " -> %s%n",
                delays.size(),
                gapMillis,
                ms(percentile(delays, 50)),
                ms(percentile(delays, 99)),
                ms(max),
                late,
                delays.size(),
                100.0 * late / delays.size(),
                percentile(delays, 50) < gap / 2 && late * 20 < delays.size()
                        ? "events are not held for the next (late ones are scheduling delays on a busy machine)"
                        : "EVENTS WAIT FOR THE NEXT");
    }

    /** Streams held open by the upstream after their first delta; heap measured while all are open. */
    private void openStreams(BenchUpstream upstream, int streams) throws Exception {
        upstream.rearm();
        String token = token();
        CountDownLatch open = new CountDownLatch(streams);
        AtomicInteger completed = new AtomicInteger();
        AtomicLong failures = new AtomicLong();
        ConcurrentLinkedQueue<String> reasons = new ConcurrentLinkedQueue<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // Opened in batches, as workers ramp up; a thousand simultaneous connects only test the TCP backlog.
            for (int i = 0; i < streams; i++) {
                if (i % 100 == 0 && i > 0) {
                    awaitOpened(open, streams - i);
                }
                threads.submit(() -> {
                    boolean counted = false;
                    try {
                        HttpResponse<InputStream> response = client.send(
                                request(gateway, token, Map.of("x-stainless-bench-hold", "1")),
                                HttpResponse.BodyHandlers.ofInputStream());
                        StringBuilder seen = new StringBuilder();
                        byte[] buffer = new byte[4096];
                        try (InputStream in = response.body()) {
                            int n;
                            while ((n = in.read(buffer)) != -1) {
                                seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                                if (!counted && seen.indexOf("text_delta") >= 0) {
                                    counted = true;
                                    open.countDown();
                                    seen.setLength(0);
                                }
                                if (seen.length() > 256) {
                                    seen.delete(0, seen.length() - 64);
                                }
                            }
                        }
                        if (seen.indexOf("message_stop") >= 0 && response.statusCode() == 200) {
                            completed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                        reasons.add(e.toString());
                    } finally {
                        if (!counted) {
                            open.countDown();
                        }
                    }
                });
            }
            boolean allOpen = open.await(180, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            int gauge = (int) app.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                    .get("talkide.gateway.streams.open")
                    .gauge()
                    .value();
            upstream.release();
            threads.shutdown();
            threads.awaitTermination(180, TimeUnit.SECONDS);
            System.out.printf(
                    "Open streams: %d requested, %s; gateway gauge talkide_gateway_streams_open %d; heap used after GC"
                            + " with all open %d MB of max %d MB (gateway, upstream and clients in one JVM);"
                            + " completed %d, failed %d%n",
                    streams,
                    allOpen ? "all open at once" : "NOT ALL OPENED",
                    gauge,
                    used >> 20,
                    Runtime.getRuntime().maxMemory() >> 20,
                    completed.get(),
                    failures.get());
            reasons.stream().distinct().limit(3).forEach(reason -> System.out.println("  failure: " + reason));
        }
    }

    /** Waits for the batch to open; one that does not within a minute shows up as failures in the report. */
    private static void awaitOpened(CountDownLatch open, long remaining) {
        try {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> open.getCount() <= remaining);
        } catch (ConditionTimeoutException notAllOpened) {
            // reported with the streams' failures
        }
    }

    /** Time to the first body byte, in nanoseconds; reads the rest and checks it ended properly. */
    private long call(URI target, String token, Map<String, String> headers) throws IOException, InterruptedException {
        long start = System.nanoTime();
        HttpResponse<InputStream> response =
                client.send(request(target, token, headers), HttpResponse.BodyHandlers.ofInputStream());
        byte[] buffer = new byte[8192];
        long firstByte;
        int tail = 0;
        InputStream in = response.body();
        // The request timeout covers the headers only. A body that stalls (seen once in 15,000 direct calls
        // between the JDK's own HTTP server and client) would hang the run: closing it fails the read.
        AtomicBoolean stalled = new AtomicBoolean();
        var deadline = watchdog.schedule(
                () -> {
                    stalled.set(true);
                    closeQuietly(in);
                },
                60,
                TimeUnit.SECONDS);
        try (in) {
            int n = in.read(buffer);
            firstByte = System.nanoTime() - start;
            while (n != -1) {
                tail = n;
                n = in.read(buffer, 0, buffer.length);
            }
        } finally {
            deadline.cancel(false);
        }
        if (stalled.get()) {
            throw new IOException("the body stalled for 60 s");
        }
        if (response.statusCode() != 200 || tail == 0) {
            throw new IOException("call failed with " + response.statusCode());
        }
        return firstByte;
    }

    /** One deadline per call, dropped as soon as the call ends (equal for both paths, so it cancels out). */
    private static ScheduledThreadPoolExecutor deadlines() {
        var deadlines = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().daemon().name("bench-call-deadline").factory());
        deadlines.setRemoveOnCancelPolicy(true);
        return deadlines;
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException alreadyBroken) {
            // the read that waits fails either way
        }
    }

    private HttpRequest request(URI target, String token, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .timeout(Duration.ofMinutes(5))
                .header("Content-Type", "application/json")
                .header("anthropic-version", "2023-06-01")
                .header("X-Worker-Token", token)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        return request.build();
    }

    private String token() {
        return app.getBean(WorkerTokenIssuer.class).issue(conversation.scope()).token();
    }

    /** About what a short chat turn sends: a system prompt, a few messages, 128000 max tokens, streaming. */
    private static byte[] requestBody() {
        String filler = "You are Mara, a careful coding agent. ".repeat(40);
        return ("{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":128000,\"stream\":true,\"system\":\"" + filler
                        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Refactor the budget service.\"},"
                        + "{\"role\":\"assistant\",\"content\":\"Sure, which part?\"},"
                        + "{\"role\":\"user\",\"content\":\"The reservation statement.\"}]}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static long percentile(List<Long> samples, int percentile) {
        List<Long> sorted = samples.stream().sorted().toList();
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private record Run(List<Long> ttfb, double rate, int failures) {}
}
