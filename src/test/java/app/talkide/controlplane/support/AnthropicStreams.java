package app.talkide.controlplane.support;

import java.util.Locale;

/** Bodies of Anthropic Messages API streams ({@code text/event-stream}), for WireMock stubs. */
public final class AnthropicStreams {

    private AnthropicStreams() {}

    /** A complete answer streamed as the given text chunks, ending with {@code end_turn}. */
    public static String text(String... chunks) {
        StringBuilder body = new StringBuilder(messageStart(25));
        body.append(event(
                "content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"));
        for (String chunk : chunks) {
            body.append(event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
                            + TestHttp.JSON.writeValueAsString(chunk) + "}}"));
        }
        body.append(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
        return body.append(end("end_turn", 15)).toString();
    }

    /** The model asks to use a tool (stop reason {@code tool_use}). */
    public static String toolUse(String toolUseId, String name) {
        return messageStart(30)
                + event(
                        "content_block_start",
                        String.format(
                                Locale.ROOT,
                                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"%s\",\"name\":\"%s\",\"input\":{}}}",
                                toolUseId,
                                name))
                + event(
                        "content_block_delta",
                        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}")
                + event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
                + end("tool_use", 12);
    }

    /** Anthropic's error shape, as the gateway answers a denial. */
    public static String error(String type, String message) {
        return "{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"" + message + "\"}}";
    }

    private static String messageStart(int inputTokens) {
        return event(
                "message_start",
                "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_test\",\"type\":\"message\",\"role\":\"assistant\","
                        + "\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":"
                        + inputTokens + ",\"output_tokens\":1}}}");
    }

    private static String end(String stopReason, int outputTokens) {
        return event(
                        "message_delta",
                        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
                                + "\"},\"usage\":{\"output_tokens\":" + outputTokens + "}}")
                + event("message_stop", "{\"type\":\"message_stop\"}");
    }

    private static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }
}
