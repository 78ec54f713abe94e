package app.talkide.controlplane.local.referenceworker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.node.ObjectNode;

/**
 * The in-worker gateway proxy: the model client inside the worker talks to
 * {@code http://127.0.0.1:<port>/<conversationId>/v1/messages} with an inert credential; this proxy drops
 * that credential, mints a fresh WorkerToken for the conversation and forwards the request to the control
 * plane's gateway, streaming the answer back chunk by chunk. The worker never holds an Anthropic key.
 */
final class GatewayProxyServer implements AutoCloseable {

    static final String GATEWAY_PATH = "/api/internal/gateway/anthropic";
    /** Request headers the Anthropic client may send that the gateway needs; everything else stays here. */
    private static final List<String> FORWARDED_REQUEST_HEADERS =
            List.of("content-type", "accept", "anthropic-version", "anthropic-beta", Traceparent.HEADER);

    private static final Set<String> FORWARDED_RESPONSE_HEADERS = Set.of(
            "content-type",
            "retry-after",
            "x-should-retry",
            "x-talkide-denial-reason",
            "request-id",
            "anthropic-ratelimit-requests-remaining");

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http;
    private final URI gateway;
    private final WorkerTokenMinter minter;

    GatewayProxyServer(HttpClient http, URI controlPlane, WorkerTokenMinter minter) throws IOException {
        this.http = http;
        this.gateway = controlPlane.resolve(GATEWAY_PATH);
        this.minter = minter;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The base URL for one conversation, as the model client's {@code ANTHROPIC_BASE_URL}. */
    URI baseUrlFor(UUID conversationId) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/" + conversationId);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            int slash = path.indexOf('/', 1);
            UUID conversationId;
            try {
                conversationId = UUID.fromString(path.substring(1, slash < 0 ? path.length() : slash));
            } catch (IllegalArgumentException e) {
                anthropicError(exchange, 404, "not_found_error", "expected /<conversationId>/v1/...");
                return;
            }
            String rest = path.substring(slash);
            String query = exchange.getRequestURI().getRawQuery();
            byte[] body = exchange.getRequestBody().readAllBytes();
            String token;
            try {
                token = minter.mint(
                        conversationId,
                        Traceparent.valid(exchange.getRequestHeaders().getFirst(Traceparent.HEADER)));
            } catch (WorkerTokenMinter.MintFailed failed) {
                int status = failed.status == 0 ? 502 : failed.status;
                anthropicError(exchange, status, errorType(status), failed.getMessage());
                return;
            }
            HttpRequest.Builder forward = HttpRequest.newBuilder(
                            URI.create(gateway + rest + (query == null ? "" : "?" + query)))
                    .header("X-Worker-Token", token)
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            // The incoming Authorization (an inert placeholder) and any x-api-key are dropped here.
            for (String name : FORWARDED_REQUEST_HEADERS) {
                String value = exchange.getRequestHeaders().getFirst(name);
                if (value != null) {
                    forward.header(name, value);
                }
            }
            stream(exchange, forward.build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stream(HttpExchange exchange, HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<InputStream> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            anthropicError(exchange, 502, "api_error", "the control plane's gateway is unreachable");
            return;
        }
        response.headers().map().forEach((name, values) -> {
            if (FORWARDED_RESPONSE_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                exchange.getResponseHeaders().put(name, values);
            }
        });
        exchange.sendResponseHeaders(response.statusCode(), 0);
        try (InputStream in = response.body();
                OutputStream out = exchange.getResponseBody()) {
            byte[] buffer = new byte[8192];
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        }
        // On a client disconnect the write above throws and try-with-resources closes the upstream body,
        // which cancels the gateway call: the user is billed only for what was generated so far.
    }

    private static String errorType(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 429 -> "rate_limit_error";
            default -> "api_error";
        };
    }

    private static void anthropicError(HttpExchange exchange, int status, String type, String message)
            throws IOException {
        ObjectNode error = HttpExchanges.JSON.createObjectNode().put("type", "error");
        error.set(
                "error", HttpExchanges.JSON.createObjectNode().put("type", type).put("message", message));
        HttpExchanges.json(exchange, status, error);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
