package app.talkide.controlplane.local.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import tools.jackson.databind.JsonNode;

/** Reading requests and writing answers on the JDK server, with the headers the real API sends. */
final class Exchanges {

    static final String REQUEST_ID = "request-id";
    static final String JSON = "application/json";
    static final String EVENT_STREAM = "text/event-stream; charset=utf-8";

    private Exchanges() {}

    /**
     * The body, refused with 413 past {@code maxBytes} (checked on the declared length first, then as
     * read). A refused body is still read off the connection, up to a bound, so the client (which sends
     * the whole body before it reads) gets the 413 instead of a reset connection.
     */
    static byte[] body(HttpExchange exchange, long maxBytes) throws IOException {
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        try (InputStream in = exchange.getRequestBody()) {
            if (declared != null && parseLength(declared) > maxBytes) {
                throw tooLarge(in, maxBytes);
            }
            byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (body.length > maxBytes) {
                throw tooLarge(in, maxBytes);
            }
            return body;
        }
    }

    static void json(HttpExchange exchange, int status, JsonNode body, String requestId) throws IOException {
        byte[] bytes = RequestParser.JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", JSON);
        exchange.getResponseHeaders().set(REQUEST_ID, requestId);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    static void error(HttpExchange exchange, ApiError error, String requestId) throws IOException {
        exchange.getResponseHeaders().set("x-should-retry", String.valueOf(error.shouldRetry()));
        if (error.status() == 429) {
            exchange.getResponseHeaders().set("retry-after", "1");
        }
        json(exchange, error.status(), WireFormat.error(error.type(), error.getMessage(), requestId), requestId);
    }

    /** Sends the headers of an event stream; the body is written and flushed event by event after this. */
    static OutputStream startEventStream(HttpExchange exchange, String requestId) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", EVENT_STREAM);
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.getResponseHeaders().set(REQUEST_ID, requestId);
        // Length 0 means chunked: each flush of the body goes out as a chunk at once.
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }

    private static long parseLength(String value) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static ApiError tooLarge(InputStream in, long maxBytes) throws IOException {
        // Past four times the limit the client is not worth the bandwidth: the connection just closes.
        long left = maxBytes * 4;
        byte[] buffer = new byte[16 * 1024];
        for (int read; left > 0 && (read = in.read(buffer)) != -1; ) {
            left -= read;
        }
        return new ApiError(413, "Request exceeds the maximum allowed size of " + maxBytes + " bytes");
    }
}
