package app.talkide.controlplane.local.simulator;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.TestHttp;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A simulator on a real loopback socket for a test, and the raw HTTP a client would send it: the
 * placeholder key and {@code anthropic-version} are added unless a test leaves them out on purpose.
 */
final class SimulatorFixture implements AutoCloseable {

    static final String MODEL = "claude-sonnet-4-5";
    static final String MESSAGES = "/v1/messages";
    static final String COUNT_TOKENS = "/v1/messages/count_tokens";

    final SimulatorServer server;
    final TestHttp http;
    final MutableClock clock;
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    SimulatorFixture(SimulatorProperties properties) {
        this.clock = MutableClock.startingNow();
        this.server = SimulatorServer.start(properties, clock);
        this.http = new TestHttp(server.baseUrl().toString());
    }

    /** No pauses at all: for tests of content, not of timing. */
    static SimulatorFixture unpaced() {
        return new SimulatorFixture(properties(Duration.ZERO, Duration.ZERO, Duration.ofMillis(100)));
    }

    static SimulatorProperties properties(Duration firstTokenDelay, Duration chunkDelay, Duration slowChunkDelay) {
        return new SimulatorProperties(
                0, firstTokenDelay, chunkDelay, 3, slowChunkDelay, DataSize.ofMegabytes(32), 1024);
    }

    static ObjectNode request(String prompt) {
        ObjectNode request = TestHttp.JSON.createObjectNode();
        request.put("model", MODEL);
        request.put("max_tokens", 1024);
        ArrayNode messages = request.putArray("messages");
        messages.addObject().put("role", "user").put("content", prompt);
        return request;
    }

    static ObjectNode streaming(String prompt) {
        return request(prompt).put("stream", true);
    }

    TestHttp.Response post(String path, JsonNode body) {
        return http.postJson(path, body.toString(), "x-api-key", server.apiKey(), "anthropic-version", "2023-06-01");
    }

    TestHttp.Response post(String path, String body, String... headers) {
        return http.postJson(path, body, headers);
    }

    /** Streams a request to the end and returns its events in order of arrival. */
    List<SseEvent> stream(JsonNode body) {
        List<SseEvent> events = new ArrayList<>();
        stream(MESSAGES, body, events::add);
        return events;
    }

    /** Streams a request, handing each event to {@code sink} the moment it arrives; returns the response. */
    HttpResponse<InputStream> stream(String path, JsonNode body, Consumer<SseEvent> sink) {
        HttpResponse<InputStream> response = open(path, body);
        readEvents(response.body(), sink);
        return response;
    }

    HttpResponse<InputStream> open(String path, JsonNode body) {
        HttpRequest request = http.request(path)
                .header("Content-Type", "application/json")
                .header("x-api-key", server.apiKey())
                .header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Parses {@code event:}/{@code data:} frames as they arrive, until the stream ends. */
    static void readEvents(InputStream body, Consumer<SseEvent> sink) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String event = null;
            String data = null;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith("event: ")) {
                    event = line.substring("event: ".length());
                } else if (line.startsWith("data: ")) {
                    data = line.substring("data: ".length());
                } else if (line.isEmpty() && event != null && data != null) {
                    sink.accept(new SseEvent(event, TestHttp.JSON.readTree(data), System.nanoTime()));
                    event = null;
                    data = null;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text of all {@code text_delta}s, in order. */
    static String text(List<SseEvent> events) {
        StringBuilder text = new StringBuilder();
        events.stream()
                .filter(e -> e.name().equals("content_block_delta"))
                .map(e -> e.data().path("delta"))
                .filter(delta -> delta.path("type").asString().equals("text_delta"))
                .forEach(delta -> text.append(delta.path("text").asString()));
        return text.toString();
    }

    static List<String> names(List<SseEvent> events) {
        return events.stream().map(SseEvent::name).toList();
    }

    static SseEvent first(List<SseEvent> events, String name) {
        return events.stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " event in " + names(events)));
    }

    @Override
    public void close() {
        server.close();
    }

    /** One server-sent event: its name, its parsed data and when it arrived ({@link System#nanoTime()}). */
    record SseEvent(String name, JsonNode data, long arrivedNanos) {}
}
