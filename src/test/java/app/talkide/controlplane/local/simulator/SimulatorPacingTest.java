package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.names;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.request;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.streaming;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.local.simulator.SimulatorFixture.SseEvent;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Streams are paced like a model's and really flushed: events arrive spread over time, many streams run
 * at once, and a client that leaves (or a server that closes) ends the stream at once. Timing is observed
 * on arrival, never waited for with sleeps.
 */
class SimulatorPacingTest {

    static final Duration SLOW = Duration.ofMillis(120);
    static final Duration FIRST_TOKEN = Duration.ofMillis(250);
    static final SimulatorFixture simulator =
            new SimulatorFixture(SimulatorFixture.properties(FIRST_TOKEN, Duration.ofMillis(5), SLOW));

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void aSlowStreamDeliversItsEventsSpreadOverTime() {
        List<SseEvent> events = new CopyOnWriteArrayList<>();
        long sent = System.nanoTime();
        CompletableFuture<Void> reading = CompletableFuture.runAsync(
                () -> simulator.stream(MESSAGES, streaming("Take your time [[sim:slow]]"), events::add));

        // Part of the answer is visible while the rest is still being generated.
        await().atMost(Duration.ofSeconds(10)).until(() -> deltas(events).size() >= 2);
        assertThat(names(events)).doesNotContain("message_stop");

        await().atMost(Duration.ofSeconds(30)).until(reading::isDone);
        List<SseEvent> deltas = deltas(events);
        assertThat(deltas.size()).isGreaterThan(5);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < deltas.size(); i++) {
            gaps.add(deltas.get(i).arrivedNanos() - deltas.get(i - 1).arrivedNanos());
        }
        Collections.sort(gaps);
        long allowance = SLOW.toNanos() * 8 / 10;
        assertThat(gaps.get(gaps.size() / 2)).as("median gap between deltas").isGreaterThanOrEqualTo(allowance);
        assertThat(deltas.getLast().arrivedNanos() - sent)
                .isGreaterThanOrEqualTo(FIRST_TOKEN.toNanos() + SLOW.toNanos() * (deltas.size() - 1));
        assertThat(names(events)).endsWith("message_delta", "message_stop");
    }

    @Test
    void theFirstTokenComesAfterAPauseAndTheRestFollowQuickly() {
        List<SseEvent> events = new CopyOnWriteArrayList<>();
        simulator.stream(MESSAGES, streaming("Normal pace"), events::add);

        SseEvent start = SimulatorFixture.first(events, "message_start");
        List<SseEvent> deltas = deltas(events);
        assertThat(deltas.getFirst().arrivedNanos() - start.arrivedNanos())
                .isGreaterThanOrEqualTo(FIRST_TOKEN.toNanos() * 8 / 10);
        assertThat(deltas.getLast().arrivedNanos() - deltas.getFirst().arrivedNanos())
                .isLessThan(deltas.size() * SLOW.toNanos());
    }

    @Test
    void aNonStreamingAnswerTakesAsLongAsTheStreamWould() {
        long started = System.nanoTime();
        int status = simulator
                .post(MESSAGES, request("[[sim:slow=200]] wait for it"))
                .status();

        assertThat(status).isEqualTo(200);
        assertThat(System.nanoTime() - started)
                .isGreaterThanOrEqualTo(FIRST_TOKEN.plusMillis(200 * 3).toNanos());
    }

    @Test
    void manyStreamsRunAtOnceEachWithItsOwnAnswer() throws Exception {
        int streams = 24;
        List<List<SseEvent>> results;
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CompletableFuture<List<SseEvent>>> futures = IntStream.range(0, streams)
                    .mapToObj(i -> CompletableFuture.supplyAsync(
                            () -> simulator.stream(streaming("Question number " + i + " [[sim:slow]]")), clients))
                    .toList();
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            results = futures.stream().map(CompletableFuture::join).toList();
        }

        for (int i = 0; i < streams; i++) {
            List<SseEvent> events = results.get(i);
            assertThat(text(events)).startsWith("Simulated reply to “Question number " + i + "”.");
            assertThat(names(events)).endsWith("message_stop");
            assertThat(SimulatorFixture.first(events, "message_delta")
                            .data()
                            .path("usage")
                            .path("output_tokens")
                            .asInt())
                    .isEqualTo(TokenCounter.of(text(events)));
        }
        // All were in flight together: every stream started before any finished.
        long lastFirstEvent = results.stream()
                .mapToLong(events -> events.getFirst().arrivedNanos())
                .max()
                .orElseThrow();
        long firstLastEvent = results.stream()
                .mapToLong(events -> events.getLast().arrivedNanos())
                .min()
                .orElseThrow();
        assertThat(lastFirstEvent).isLessThan(firstLastEvent);
        await().atMost(Duration.ofSeconds(5)).until(() -> simulator.server.requestsInFlight() == 0);
    }

    @Test
    void aClientThatLeavesMidStreamEndsTheStream() throws Exception {
        await().atMost(Duration.ofSeconds(5)).until(() -> simulator.server.requestsInFlight() == 0);
        HttpResponse<InputStream> response = simulator.open(MESSAGES, streaming("[[sim:length=400]] [[sim:slow]]"));
        InputStream body = response.body();
        assertThat(body.readNBytes(200)).hasSize(200);
        assertThat(simulator.server.requestsInFlight()).isEqualTo(1);

        body.close();

        // The next delta written into the closed connection fails and the handler lets go.
        await().atMost(Duration.ofSeconds(5)).until(() -> simulator.server.requestsInFlight() == 0);
    }

    @Test
    void closingTheSimulatorEndsRunningStreamsAtOnce() {
        SimulatorFixture closing =
                new SimulatorFixture(SimulatorFixture.properties(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(30)));
        List<SseEvent> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
            try {
                closing.stream(MESSAGES, streaming("[[sim:slow]] forever"), events::add);
            } catch (RuntimeException e) {
                // the connection breaks: that is the point
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !deltas(events).isEmpty());

        closing.close();

        await().atMost(Duration.ofSeconds(5)).until(reading::isDone);
        assertThat(closing.server.requestsInFlight()).isZero();
        assertThat(names(events)).doesNotContain("message_stop");
    }

    private static List<SseEvent> deltas(List<SseEvent> events) {
        return events.stream()
                .filter(e -> e.name().equals("content_block_delta"))
                .toList();
    }
}
