package app.talkide.controlplane.bench;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.TestCommandSigning;
import app.talkide.controlplane.workercontract.SseEventReader;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;

/**
 * How long a worker event takes to reach a browser: the harness subscribes to the worker's own stream
 * (signed, as the control plane does) and to the conversation's browser stream, runs turns, and pairs the
 * k-th {@code text.delta} of each. The difference of arrival times, both taken in this process, is what
 * the control plane adds: consume, append (persisted), notify, fan out, write. The baseline is the worker
 * stream itself: the spread between two direct subscribers of the worker, measured the same way.
 *
 * <p>Arguments: control-plane URL, worker URL, worker command key, tenant, env, user:password, turns,
 * tokens per answer.
 */
public final class WorkerToBrowserLatency {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    record Arrival(String type, long nanos) {}

    public static void main(String[] args) throws Exception {
        URI controlPlane = URI.create(args[0]);
        URI worker = URI.create(args[1]);
        TenantEnvironmentId tenantEnvironment = TenantEnvironmentId.of(args[3], args[4]);
        var signer = TestCommandSigning.signer(args[2], tenantEnvironment, Clock.systemUTC());
        String basic = "Basic " + Base64.getEncoder().encodeToString(args[5].getBytes());
        int turns = args.length > 6 ? Integer.parseInt(args[6]) : 5;
        int tokens = args.length > 7 ? Integer.parseInt(args[7]) : 400;

        String created = send(HttpRequest.newBuilder(controlPlane.resolve("/api/conversations"))
                .header("Authorization", basic)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"tenant\":\"" + tenantEnvironment.tenant()
                        + "\",\"env\":\"" + tenantEnvironment.env() + "\",\"title\":\"latency\"}")));
        UUID conversation = UUID.fromString(JSON.readTree(created).get("id").asString());
        // The first message opens the worker session; its turn is the warm-up.
        post(controlPlane, basic, conversation, "warm-up [[sim:length=50]]");
        String streamPath = "/sessions/" + conversation + "/stream";
        // The message reaches the worker asynchronously: its session (and stream) may not exist yet.
        List<Arrival> direct = null;
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); direct == null; ) {
            try {
                direct = subscribe(HttpRequest.newBuilder(worker.resolve(streamPath))
                        .header("X-Worker-Token", signer.sign("GET", streamPath, new byte[0])));
            } catch (IllegalStateException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        List<Arrival> direct2 = subscribe(HttpRequest.newBuilder(worker.resolve(streamPath))
                .header("X-Worker-Token", signer.sign("GET", streamPath, new byte[0])));
        List<Arrival> browser =
                subscribe(HttpRequest.newBuilder(controlPlane.resolve("/api/conversations/" + conversation + "/stream"))
                        .header("Authorization", basic));
        waitForTurnEnds(browser, 1, Duration.ofSeconds(60));
        waitForTurnEnds(direct, 1, Duration.ofSeconds(10));
        waitForTurnEnds(direct2, 1, Duration.ofSeconds(10));
        int skipBrowser = count(browser, "text.delta");
        int skipDirect = count(direct, "text.delta");
        int skipDirect2 = count(direct2, "text.delta");

        for (int turn = 0; turn < turns; turn++) {
            post(controlPlane, basic, conversation, "turn " + turn + " [[sim:length=" + tokens + "]] [[sim:slow=2ms]]");
            waitForTurnEnds(browser, turn + 2, Duration.ofSeconds(120));
        }
        waitForTurnEnds(direct, turns + 1, Duration.ofSeconds(10));
        waitForTurnEnds(direct2, turns + 1, Duration.ofSeconds(10));

        List<Long> added = pairwise(deltas(direct, skipDirect), deltas(browser, skipBrowser));
        List<Long> baseline = pairwise(deltas(direct, skipDirect), deltas(direct2, skipDirect2));
        System.out.printf("turns: %d, text.delta events paired: %d%n", turns, added.size());
        System.out.println("worker → browser (through the control plane): " + summary(added));
        System.out.println("baseline, worker → second direct subscriber:   " + summary(baseline));
        System.exit(0);
    }

    private static List<Long> deltas(List<Arrival> arrivals, int skip) {
        return arrivals.stream()
                .filter(a -> a.type().equals("text.delta"))
                .skip(skip)
                .map(Arrival::nanos)
                .toList();
    }

    private static List<Long> pairwise(List<Long> from, List<Long> to) {
        List<Long> differences = new ArrayList<>();
        for (int i = 0; i < Math.min(from.size(), to.size()); i++) {
            differences.add(Math.abs(to.get(i) - from.get(i)));
        }
        return differences;
    }

    private static String summary(List<Long> nanos) {
        if (nanos.isEmpty()) {
            return "no samples";
        }
        List<Long> sorted = nanos.stream().sorted().toList();
        return String.format(
                "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (n=%d)",
                ms(sorted, 0.50), ms(sorted, 0.90), ms(sorted, 0.99), sorted.getLast() / 1e6, sorted.size());
    }

    private static double ms(List<Long> sorted, double quantile) {
        return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1)) / 1e6;
    }

    private static List<Arrival> subscribe(HttpRequest.Builder request) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(
                request.header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("stream answered " + response.statusCode());
        }
        List<Arrival> arrivals = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            SseEventReader reader = new SseEventReader(response.body());
            try {
                SseEventReader.SseEvent event;
                while ((event = reader.next()) != null) {
                    arrivals.add(new Arrival(event.type(), System.nanoTime()));
                }
            } catch (Exception ended) {
                // the harness exits
            }
        });
        return arrivals;
    }

    private static void waitForTurnEnds(List<Arrival> arrivals, int turns, Duration atMost)
            throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (count(arrivals, "turn.completed") + count(arrivals, "turn.failed") < turns) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("turn did not end in " + atMost);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private static int count(List<Arrival> arrivals, String type) {
        return (int) arrivals.stream().filter(a -> a.type().equals(type)).count();
    }

    private static void post(URI controlPlane, String basic, UUID conversation, String text) throws Exception {
        send(HttpRequest.newBuilder(controlPlane.resolve("/api/conversations/" + conversation + "/messages"))
                .header("Authorization", basic)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"clientMessageId\":\"" + UUID.randomUUID() + "\",\"text\":\"" + text + "\"}")));
    }

    private static String send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
