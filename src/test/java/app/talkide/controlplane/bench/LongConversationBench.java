package app.talkide.controlplane.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Long conversations against {@link LongConversationBenchServer}: builds conversations of N turns
 * × D deltas through the log's append, then, before and after compacting them in the same run: append
 * throughput (one more turn, a chunk of deltas per append), append → browser-stream latency (200 events/s
 * for 5 s read by an SSE client), and in headless Chromium the time from navigation until the last turn
 * shows and the stream is live, the JS heap and the DOM size; and the event table's size per turn.
 *
 * <p>Arguments: base URL, {@code user:password}, turn counts (e.g. {@code 30,300}), deltas per turn.
 */
public final class LongConversationBench {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final Pattern TICK = Pattern.compile("\"t\":(\\d+)");

    private static String base;
    private static String basic;

    public static void main(String[] args) throws Exception {
        base = args[0];
        String[] credentials = args[1].split(":", 2);
        basic = "Basic " + Base64.getEncoder().encodeToString(args[1].getBytes(StandardCharsets.UTF_8));
        int[] sizes =
                Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
        int deltas = Integer.parseInt(args[3]);

        Map<Integer, String> conversations = new LinkedHashMap<>();
        long turnsTotal = 0;
        for (int turns : sizes) {
            String[] built =
                    post("/api/bench/long?turns=" + turns + "&deltas=" + deltas).split(" ");
            conversations.put(turns, built[0]);
            turnsTotal += turns;
            System.out.printf(
                    "built %d turns × %d deltas: %s events, %s events/s appended%n", turns, deltas, built[1], built[2]);
        }
        String[] before = get("/api/bench/long/size").split(" ");
        ChromeDriver browser = browser(credentials[0], credentials[1]);
        try {
            Map<Integer, String> report = new LinkedHashMap<>();
            for (var entry : conversations.entrySet()) {
                String id = entry.getValue();
                String turn =
                        post("/api/bench/long/" + id + "/turn?deltas=" + deltas).split(" ")[1];
                report.put(
                        entry.getKey(),
                        "before: " + latency(id) + ", append " + turn + " events/s, " + open(browser, id));
            }
            for (var entry : conversations.entrySet()) {
                String[] compacted =
                        post("/api/bench/long/" + entry.getValue() + "/compact").split(" ");
                System.out.printf(
                        "compacted %d-turn conversation: %s turns folded in %s ms%n",
                        entry.getKey(), compacted[0], compacted[1]);
            }
            String[] after = get("/api/bench/long/size").split(" ");
            turnsTotal += conversations.size(); // the one more turn each
            for (var entry : conversations.entrySet()) {
                String id = entry.getValue();
                String turn =
                        post("/api/bench/long/" + id + "/turn?deltas=" + deltas).split(" ")[1];
                post("/api/bench/long/" + id + "/compact");
                System.out.printf(
                        "%d turns %s%n  after:  %s, append %s events/s, %s%n",
                        entry.getKey(), report.get(entry.getKey()), latency(id), turn, open(browser, id));
            }
            long textPerTurn = Long.parseLong(after[2]) / turnsTotal;
            System.out.printf(
                    "log (conversation_event with indexes, after VACUUM FULL): %s rows, %,d bytes before compaction;"
                            + " %s rows, %,d bytes after; per turn %,d bytes for %,d bytes of text (target ≤ 2 × text + 1 KB = %,d)%n",
                    before[1],
                    Long.parseLong(before[0]),
                    after[1],
                    Long.parseLong(after[0]),
                    Long.parseLong(after[0]) / turnsTotal,
                    textPerTurn,
                    2 * textPerTurn + 1024);
        } finally {
            browser.quit();
        }
    }

    /** Append → browser stream latency: 200 events/s for 5 s, read by one SSE client opened after the log's end. */
    private static String latency(String id) throws Exception {
        long cursor = Long.parseLong(
                get("/api/conversations/" + id + "/history?turns=1").replaceAll(".*\"cursor\":(\\d+).*", "$1"));
        HttpResponse<java.io.InputStream> stream = HTTP.send(
                request("/api/conversations/" + id + "/stream?lastEventId=" + cursor)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        int expected = 1000;
        CompletableFuture<long[]> read = CompletableFuture.supplyAsync(() -> {
            List<Long> samples = new ArrayList<>();
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                for (String line; samples.size() < expected && (line = lines.readLine()) != null; ) {
                    Matcher tick = TICK.matcher(line);
                    if (line.startsWith("data:") && tick.find()) {
                        samples.add(micros() - Long.parseLong(tick.group(1)));
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return samples.stream().mapToLong(Long::longValue).sorted().toArray();
        });
        post("/api/bench/conversations/" + id + "/emit?rate=200&seconds=5");
        long[] sorted = read.get(60, TimeUnit.SECONDS);
        return String.format(
                "append → stream p50 %.1f ms p99 %.1f ms (%d events)",
                sorted[sorted.length / 2] / 1000.0, sorted[(int) (sorted.length * 0.99)] / 1000.0, sorted.length);
    }

    /** From navigation until the last turn is on the page and the stream is live; then heap and DOM size. */
    private static String open(ChromeDriver browser, String id) {
        browser.get("about:blank");
        long start = System.nanoTime();
        browser.get(base + "/#c=" + id);
        Object inPage;
        // performance.now() counts from the navigation's start: the page's own view, without WebDriver's.
        while ((inPage = browser.executeScript("""
                const t = document.getElementById('transcript'), c = document.getElementById('connection');
                return !!t && !!c && c.dataset.state === 'live' && t.textContent.includes('end-of-turn-')
                    ? performance.now() : null;
                """)) == null) {
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(300)) {
                return "browser: not live after 300 s";
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        Object heap = browser.executeScript("return performance.memory.usedJSHeapSize;");
        Object nodes = browser.executeScript("return document.getElementsByTagName('*').length;");
        Object history = browser.executeScript("""
                const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/history'));
                return e ? e.responseEnd - e.startTime : -1;
                """);
        return String.format(
                "browser: last turn shown and live %.0f ms after navigation start (%d ms around WebDriver; the"
                        + " history request %.0f ms), JS heap %.1f MB, %s DOM elements",
                ((Number) inPage).doubleValue(),
                millis,
                ((Number) history).doubleValue(),
                ((Number) heap).longValue() / 1e6,
                nodes);
    }

    private static ChromeDriver browser(String user, String password) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--enable-precise-memory-info",
                "--window-size=1280,900");
        ChromeDriver driver = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver"))
                        .build(),
                options);
        driver.get(base + "/login");
        driver.findElement(By.id("username")).sendKeys(user);
        driver.findElement(By.id("password")).sendKeys(password, Keys.ENTER);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (driver.getCurrentUrl().contains("/login") && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return driver;
    }

    private static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    private static HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", basic);
    }

    private static String post(String path) throws Exception {
        return send(request(path).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static String get(String path) throws Exception {
        return send(request(path).GET());
    }

    private static String send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response =
                HTTP.send(request.timeout(Duration.ofMinutes(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
