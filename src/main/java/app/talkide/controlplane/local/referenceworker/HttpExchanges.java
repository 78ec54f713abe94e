package app.talkide.controlplane.local.referenceworker;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Reading requests and writing JSON and problem answers on the JDK HTTP server. */
final class HttpExchanges {

    static final JsonMapper JSON = JsonMapper.builder().build();
    /** Commands are small; anything bigger is refused before it is hashed or parsed. */
    static final int MAX_BODY = 1 << 20;

    private HttpExchanges() {}

    /** The body, or null when it is larger than {@link #MAX_BODY}. */
    static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(MAX_BODY + 1);
            return body.length > MAX_BODY ? null : body;
        }
    }

    /** The path with its query, exactly as sent: what a command token is bound to. */
    static String target(HttpExchange exchange) {
        String query = exchange.getRequestURI().getRawQuery();
        return exchange.getRequestURI().getRawPath() + (query == null ? "" : "?" + query);
    }

    static void json(HttpExchange exchange, int status, JsonNode body) throws IOException {
        send(exchange, status, "application/json", JSON.writeValueAsBytes(body));
    }

    static void empty(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    /** An RFC 9457 problem, the shape the control plane's client reads {@code detail} from. */
    static void problem(HttpExchange exchange, int status, String slug, String title, String detail)
            throws IOException {
        ObjectNode problem = JSON.createObjectNode()
                .put("type", "https://talkide.app/problems/worker/" + slug)
                .put("title", title)
                .put("status", status)
                .put("detail", detail);
        send(exchange, status, "application/problem+json", JSON.writeValueAsBytes(problem));
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
