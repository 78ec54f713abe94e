package app.talkide.controlplane.bench;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.TestCommandSigning;
import app.talkide.controlplane.workercontract.SseEventReader;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Node worker through the whole product: turns sent as a browser sends them (the control plane's
 * API), delivered to the Node worker, run by the real engine, whose model calls go through the worker's
 * local gateway proxy and the control plane's gateway to the built-in simulator. Per turn: from the
 * browser's 202 to the turn's first model call at the gateway (stamped by {@link NodeWorkerBenchServer}),
 * to {@code turn.started} and to {@code turn.completed} on the browser's stream. Then the worker's
 * resident memory with the sessions open. All times are wall-clock microseconds taken on this machine.
 *
 * <p>Arguments: control-plane URL, user:password, worker URL, worker command key, conversations, turns
 * per conversation (the first of each starts its engine), open sessions wanted.
 */
public final class NodeWorkerTurns {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    private static final Duration TURN = Duration.ofMinutes(3);

    record Arrival(String type, long micros) {}

    /** Microseconds from the browser's 202; the model call's own duration; its end to turn.completed. */
    record Turn(long toModelCall, long toStarted, long toCompleted, long modelCall, long afterModel) {}

    public static void main(String[] args) throws Exception {
        URI controlPlane = URI.create(args[0]);
        String basic = "Basic " + Base64.getEncoder().encodeToString(args[1].getBytes(StandardCharsets.UTF_8));
        URI worker = URI.create(args[2]);
        var signer = TestCommandSigning.signer(args[3], DEMO, Clock.systemUTC());
        int conversations = Integer.parseInt(args[4]);
        int turnsEach = Integer.parseInt(args[5]);
        int sessions = Integer.parseInt(args[6]);

        String idle = send(HttpRequest.newBuilder(controlPlane.resolve("/api/bench/worker-memory"))
                .header("Authorization", basic));
        List<Turn> first = new ArrayList<>();
        List<Turn> followUps = new ArrayList<>();
        for (int c = 0; c < conversations; c++) {
            UUID conversation = UUID.fromString(
                    JSON.readTree(send(HttpRequest.newBuilder(controlPlane.resolve("/api/conversations"))
                                    .header("Authorization", basic)
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(
                                            "{\"tenant\":\"demo\",\"env\":\"dev\",\"title\":\"bench\"}"))))
                            .get("id")
                            .asString());
            List<Arrival> browser = subscribe(
                    HttpRequest.newBuilder(controlPlane.resolve("/api/conversations/" + conversation + "/stream"))
                            .header("Authorization", basic));
            for (int t = 0; t < turnsEach; t++) {
                Turn turn = turn(controlPlane, basic, conversation, browser, t);
                (t == 0 ? first : followUps).add(turn);
                System.err.printf(
                        "conversation %d turn %d: turn.started %d ms, model call %d ms (lasting %d ms),"
                                + " turn.completed %d ms (%d ms after the last model call)%n",
                        c + 1,
                        t,
                        turn.toStarted() / 1000,
                        turn.toModelCall() / 1000,
                        turn.modelCall() / 1000,
                        turn.toCompleted() / 1000,
                        turn.afterModel() / 1000);
            }
        }
        // The other sessions are opened on the worker as the control plane opens them, with no turn yet:
        // their cost is the worker's; the engines' is in the conversations above.
        for (int s = conversations; s < sessions; s++) {
            byte[] body = ("{\"conversationId\":\"" + UUID.randomUUID() + "\",\"userId\":\"dev\",\"resume\":true}")
                    .getBytes(StandardCharsets.UTF_8);
            send(HttpRequest.newBuilder(worker.resolve("/sessions"))
                    .header("X-Worker-Token", signer.sign("POST", "/sessions", body))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
        }
        String loaded = send(HttpRequest.newBuilder(controlPlane.resolve("/api/bench/worker-memory"))
                .header("Authorization", basic));

        System.out.println("| browser's 202 → | turns | turn.started at the browser p50 "
                + "| first model call at the gateway p50 / p99 | turn.completed at the browser p50 / p99 "
                + "| that model call lasted p50 | last model call's end → turn.completed p50 |");
        System.out.println("|---|---|---|---|---|---|---|");
        System.out.println(row("first turn of a conversation (engine starts)", first));
        System.out.println(row("follow-up turn (warm engine)", followUps));
        System.out.printf(
                "follow-up / first turn, to the first model call (p50): %.3f%n",
                p(followUps, 0.5, Turn::toModelCall) / (double) p(first, 0.5, Turn::toModelCall));
        System.out.println();
        System.out.println("| resident memory | worker process | worker + engines |");
        System.out.println("|---|---|---|");
        System.out.println(memoryRow("idle", idle));
        System.out.println(memoryRow(sessions + " open sessions, " + conversations + " after turns", loaded));
        System.exit(0);
    }

    private static Turn turn(URI controlPlane, String basic, UUID conversation, List<Arrival> browser, int n)
            throws Exception {
        int ended = count(browser, "turn.completed") + count(browser, "turn.failed");
        int started = count(browser, "turn.started");
        int callsBefore = modelCalls(controlPlane, basic, conversation).length;
        String body = "{\"clientMessageId\":\"" + UUID.randomUUID() + "\",\"text\":\"Turn " + n
                + ": say hi. [[sim:length=20]]\"}";
        send(HttpRequest.newBuilder(controlPlane.resolve("/api/conversations/" + conversation + "/messages"))
                .header("Authorization", basic)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        long accepted = NodeWorkerBenchServer.micros();
        long deadline = System.nanoTime() + TURN.toNanos();
        while (count(browser, "turn.completed") + count(browser, "turn.failed") == ended) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the turn did not end in " + TURN);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        Arrival end = browser.stream()
                .filter(a -> a.type().equals("turn.completed") || a.type().equals("turn.failed"))
                .skip(ended)
                .findFirst()
                .orElseThrow();
        if (!end.type().equals("turn.completed")) {
            throw new IllegalStateException("turn " + n + " of " + conversation + " failed");
        }
        Arrival begun = browser.stream()
                .filter(a -> a.type().equals("turn.started"))
                .skip(started)
                .findFirst()
                .orElseThrow();
        long[][] calls = modelCalls(controlPlane, basic, conversation);
        if (calls.length <= callsBefore) {
            throw new IllegalStateException("no model call reached the gateway for turn " + n);
        }
        long[] firstCall = calls[callsBefore];
        long lastEnd = Arrays.stream(calls)
                .skip(callsBefore)
                .mapToLong(c -> c[1])
                .max()
                .orElseThrow();
        return new Turn(
                Math.max(0, firstCall[0] - accepted),
                Math.max(0, begun.micros() - accepted),
                end.micros() - accepted,
                firstCall[1] - firstCall[0],
                end.micros() - lastEnd);
    }

    /** Each model call of the conversation: {arrival, end}. */
    private static long[][] modelCalls(URI controlPlane, String basic, UUID conversation) throws Exception {
        String answer = send(HttpRequest.newBuilder(controlPlane.resolve("/api/bench/model-calls/" + conversation))
                .header("Authorization", basic));
        return answer.isBlank()
                ? new long[0][]
                : Arrays.stream(answer.split(","))
                        .map(call -> Arrays.stream(call.split(":"))
                                .mapToLong(Long::parseLong)
                                .toArray())
                        .toArray(long[][]::new);
    }

    private static String row(String name, List<Turn> turns) {
        return String.format(
                "| %s | %d | %d ms | %d / %d ms | %d / %d ms | %d ms | %d ms |",
                name,
                turns.size(),
                p(turns, 0.5, Turn::toStarted) / 1000,
                p(turns, 0.5, Turn::toModelCall) / 1000,
                p(turns, 0.99, Turn::toModelCall) / 1000,
                p(turns, 0.5, Turn::toCompleted) / 1000,
                p(turns, 0.99, Turn::toCompleted) / 1000,
                p(turns, 0.5, Turn::modelCall) / 1000,
                p(turns, 0.5, Turn::afterModel) / 1000);
    }

    private static long p(List<Turn> turns, double quantile, java.util.function.ToLongFunction<Turn> what) {
        long[] sorted = turns.stream().mapToLong(what).sorted().toArray();
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)];
    }

    private static String memoryRow(String name, String memory) {
        String[] kb = memory.trim().split(" ");
        return String.format(
                "| %s | %d MB | %d MB (%s engines) |",
                name, Long.parseLong(kb[0]) / 1024, Long.parseLong(kb[1]) / 1024, kb[2]);
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
                    arrivals.add(new Arrival(event.type(), NodeWorkerBenchServer.micros()));
                }
            } catch (Exception ended) {
                // the harness exits
            }
        });
        return arrivals;
    }

    private static int count(List<Arrival> arrivals, String type) {
        return (int) arrivals.stream().filter(a -> a.type().equals(type)).count();
    }

    private static String send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
