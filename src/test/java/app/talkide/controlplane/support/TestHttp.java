package app.talkide.controlplane.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Real HTTP over a real socket to an application under test, with a few conveniences. */
public final class TestHttp {

    public static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;

    public TestHttp(int port) {
        this("http://127.0.0.1:" + port);
    }

    public TestHttp(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30));
    }

    public Response get(String path, String... headers) {
        return send(withHeaders(request(path), headers).GET().build());
    }

    public Response postJson(String path, String json, String... headers) {
        return send(withHeaders(request(path), headers)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    public Response put(String path, String... headers) {
        return send(withHeaders(request(path), headers)
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build());
    }

    public Response delete(String path, String... headers) {
        return send(withHeaders(request(path), headers).DELETE().build());
    }

    public Response send(HttpRequest request) {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpRequest.Builder withHeaders(HttpRequest.Builder builder, String... headers) {
        for (int i = 0; i + 1 < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return builder;
    }

    /** A response with its body read as text, and parsed as JSON on demand. */
    public record Response(HttpResponse<String> raw) {

        public int status() {
            return raw.statusCode();
        }

        public String body() {
            return raw.body();
        }

        public JsonNode json() {
            return JSON.readTree(raw.body());
        }

        public String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }
}
