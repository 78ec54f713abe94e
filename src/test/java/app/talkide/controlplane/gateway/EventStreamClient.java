package app.talkide.controlplane.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A worker reading the gateway's event stream as it comes: each whole event lands in a queue the moment it arrives. */
final class EventStreamClient implements AutoCloseable {

    static final String END = "<end of stream>";

    private final HttpClient http = HttpClient.newHttpClient();
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final CompletableFuture<HttpResponse<InputStream>> response;

    /** Sends the request; the response (headers and events) is read in the background as it comes. */
    EventStreamClient(String url, String token, String body) {
        response = http.sendAsync(
                HttpRequest.newBuilder(URI.create(url))
                        .header("X-Worker-Token", token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        response.thenAccept(answer -> Thread.ofVirtual().start(() -> read(answer)));
    }

    int status() throws Exception {
        return response.get(10, TimeUnit.SECONDS).statusCode();
    }

    private void read(HttpResponse<InputStream> answer) {
        StringBuilder event = new StringBuilder();
        byte[] buffer = new byte[8192];
        try (InputStream in = answer.body()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                event.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                int end;
                while ((end = event.indexOf("\n\n")) >= 0) {
                    events.add(event.substring(0, end + 2));
                    event.delete(0, end + 2);
                }
            }
        } catch (IOException closed) {
            // closed by us, or the connection broke: either way the stream is over
        }
        events.add(END);
    }

    /** The next whole event, or a failure if none arrives in time. */
    String next(Duration within) throws InterruptedException {
        String event = events.poll(within.toMillis(), TimeUnit.MILLISECONDS);
        if (event == null) {
            throw new AssertionError("no event reached the client within " + within);
        }
        return event;
    }

    /** The next whole event, or null if none arrives in time (for "nothing came"). */
    String poll(Duration within) throws InterruptedException {
        return events.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Hangs up mid-stream, as a worker that crashed or was interrupted would. */
    @Override
    public void close() throws IOException {
        HttpResponse<InputStream> answer = response.getNow(null);
        if (answer != null) {
            answer.body().close();
        }
        response.cancel(true);
        http.shutdownNow();
    }
}
