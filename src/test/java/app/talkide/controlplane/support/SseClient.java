package app.talkide.controlplane.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A browser's side of a Server-Sent-Events stream over a real socket (JDK HttpClient): collects the
 * events as they arrive, and the comments (heartbeats). {@link #connect} returns once the response
 * headers are in and fails on any status but 200.
 */
public final class SseClient implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** One event as received; {@code id} and {@code type} null when the server sent none. */
    public record Event(@Nullable String id, @Nullable String type, String data) {}

    private final HttpResponse<InputStream> response;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger comments = new AtomicInteger();
    private volatile @Nullable Long retry;
    private volatile boolean ended;

    private SseClient(HttpResponse<InputStream> response) {
        this.response = response;
        Thread.ofVirtual().name("sse-client").start(this::read);
    }

    public static SseClient connect(String url, String headerName, String headerValue) {
        return connect(url, new String[] {headerName, headerValue});
    }

    /** With any number of header name/value pairs (e.g. {@code Last-Event-ID}). */
    public static SseClient connect(String url, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<InputStream> response =
                    HTTP.send(request.GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
                throw new IllegalStateException("stream answered " + response.statusCode() + ": " + body);
            }
            return new SseClient(response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The events received so far, in arrival order. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** The ids of the events received so far, as numbers. */
    public List<Long> ids() {
        return events.stream().map(Event::id).map(Long::parseLong).toList();
    }

    /** Comment lines received (the server's heartbeats). */
    public int comments() {
        return comments.get();
    }

    public @Nullable Long retry() {
        return retry;
    }

    /** Whether the server ended the stream. */
    public boolean ended() {
        return ended;
    }

    public String header(String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    private void read() {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String id = null;
            String type = null;
            StringBuilder data = null;
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null) {
                        events.add(new Event(id, type, data.toString()));
                    }
                    id = null;
                    type = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    comments.incrementAndGet();
                } else {
                    int colon = line.indexOf(':');
                    String field = colon < 0 ? line : line.substring(0, colon);
                    String value = colon < 0 ? "" : line.substring(colon + 1);
                    if (value.startsWith(" ")) {
                        value = value.substring(1);
                    }
                    switch (field) {
                        case "id" -> id = value;
                        case "event" -> type = value;
                        case "data" ->
                            data = data == null
                                    ? new StringBuilder(value)
                                    : data.append('\n').append(value);
                        case "retry" -> retry = Long.parseLong(value);
                        default -> {}
                    }
                }
            }
        } catch (IOException closed) {
            // closed by close() or by the server
        } finally {
            ended = true;
        }
    }

    @Override
    public void close() {
        try {
            response.body().close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }
}
