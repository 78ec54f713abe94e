package app.talkide.controlplane.gateway;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Errors the gateway makes itself, in Anthropic's shape
 * ({@code {"type":"error","error":{"type","message"},"request_id"}}), so the SDK in the worker handles
 * them like the API's own. Messages are written for the user and never carry secrets.
 */
public final class AnthropicErrors {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private AnthropicErrors() {}

    /** The JSON body of an error. */
    public static byte[] body(String type, String message, String requestId) {
        ObjectNode root = JSON.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", type);
        error.put("message", message);
        root.put("request_id", requestId);
        return JSON.writeValueAsBytes(root);
    }

    /** The same error as one server-sent event, for a stream that already started. */
    public static byte[] event(String type, String message) {
        ObjectNode root = JSON.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", type);
        error.put("message", message);
        return ("event: error\ndata: " + JSON.writeValueAsString(root) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** 404 for anything under the gateway's prefix that is not one of the calls it forwards. */
    public static void notFound(HttpServletResponse response) throws IOException {
        write(
                response,
                404,
                "not_found_error",
                "Not found: the gateway serves POST /v1/messages and POST /v1/messages/count_tokens.",
                "gw_not_found");
    }

    public static void write(HttpServletResponse response, int status, String type, String message, String requestId)
            throws IOException {
        byte[] body = body(type, message, requestId);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setHeader("request-id", requestId);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
