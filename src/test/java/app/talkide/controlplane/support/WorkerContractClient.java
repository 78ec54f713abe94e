package app.talkide.controlplane.support;

import app.talkide.controlplane.token.command.TestCommandSigning;
import app.talkide.controlplane.workercontract.SseEventReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Plays the control plane against a worker over real HTTP: signed commands, and event streams collected
 * in the background. Deliberately independent of the production {@code WorkerClient}, so contract tests
 * check the worker, not the client against itself.
 */
public final class WorkerContractClient {

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI baseUrl;
    private final TestCommandSigning.Signer signer;

    public WorkerContractClient(URI baseUrl, TestCommandSigning.Signer signer) {
        this.baseUrl = baseUrl;
        this.signer = signer;
    }

    public TestHttp.Response openSession(UUID conversationId, String userId) {
        return send(
                "POST",
                "/sessions",
                json("conversationId", conversationId.toString(), "userId", userId)
                        .replace("}", ",\"resume\":true}"));
    }

    public TestHttp.Response message(UUID conversationId, String messageId, String text) {
        return send("POST", "/sessions/" + conversationId + "/messages", json("messageId", messageId, "text", text));
    }

    public TestHttp.Response interrupt(UUID conversationId) {
        return send("POST", "/sessions/" + conversationId + "/interrupt", "");
    }

    public TestHttp.Response delete(UUID conversationId) {
        return send("DELETE", "/sessions/" + conversationId, "");
    }

    /** A signed call with the given body; the token covers exactly these bytes. */
    public TestHttp.Response send(String method, String path, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return sendWithToken(method, path, body, signer.sign(method, path, bytes));
    }

    public TestHttp.Response sendWithToken(String method, String path, String body, @Nullable String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(baseUrl.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("X-Worker-Token", token);
        }
        try {
            return new TestHttp.Response(http.send(request.build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String sign(String method, String path, String body) {
        return signer.sign(method, path, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Opens the session's stream and collects its events on a virtual thread until closed. */
    public Subscription subscribe(UUID conversationId, @Nullable String lastEventId) {
        String path = "/sessions/" + conversationId + "/stream";
        HttpRequest.Builder request = HttpRequest.newBuilder(baseUrl.resolve(path))
                .header("X-Worker-Token", signer.sign("GET", path, new byte[0]))
                .header("Accept", "text/event-stream")
                .GET();
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        try {
            HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            return new Subscription(response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String json(String... pairs) {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < pairs.length; i += 2) {
            if (i > 0) {
                json.append(',');
            }
            json.append(TestHttp.JSON.writeValueAsString(pairs[i]))
                    .append(':')
                    .append(TestHttp.JSON.writeValueAsString(pairs[i + 1]));
        }
        return json.append('}').toString();
    }

    /** An open stream and the events it has delivered so far. */
    public static final class Subscription implements AutoCloseable {

        private final HttpResponse<InputStream> response;
        private final List<SseEventReader.SseEvent> events = new CopyOnWriteArrayList<>();
        private volatile boolean ended;

        Subscription(HttpResponse<InputStream> response) {
            this.response = response;
            if (response.statusCode() == 200) {
                Thread.ofVirtual().start(this::collect);
            } else {
                ended = true;
            }
        }

        private void collect() {
            SseEventReader reader = new SseEventReader(response.body());
            try {
                SseEventReader.SseEvent event;
                while ((event = reader.next()) != null) {
                    events.add(event);
                }
            } catch (IOException closed) {
                // closed by the test or the worker
            } finally {
                ended = true;
            }
        }

        public int status() {
            return response.statusCode();
        }

        public String contentType() {
            return response.headers().firstValue("Content-Type").orElse("");
        }

        public List<SseEventReader.SseEvent> events() {
            return List.copyOf(events);
        }

        public List<String> types() {
            return events.stream().map(SseEventReader.SseEvent::type).toList();
        }

        public JsonNode data(SseEventReader.SseEvent event) {
            return TestHttp.JSON.readTree(event.data());
        }

        public boolean ended() {
            return ended;
        }

        @Override
        public void close() {
            try {
                response.body().close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
