package app.talkide.controlplane.local.simulator;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON objects of the Messages API, field for field as the real API sends them today (including
 * the fields newer SDKs expect, such as {@code stop_details}, {@code cache_creation} and
 * {@code service_tier}).
 */
final class WireFormat {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private WireFormat() {}

    /** A message object: the finished one, or ({@code complete == false}) the empty one that opens a stream. */
    static ObjectNode message(String id, String model, Reply reply, boolean complete, InputUsage input, int output) {
        ObjectNode message = JSON.objectNode();
        message.put("id", id);
        message.put("type", "message");
        message.put("role", "assistant");
        message.put("model", model);
        var content = message.putArray("content");
        if (complete) {
            reply.blocks().forEach(block -> content.add(block(block, true)));
            message.put("stop_reason", reply.stopReason());
            message.put("stop_sequence", reply.stopSequence());
        } else {
            message.putNull("stop_reason");
            message.putNull("stop_sequence");
        }
        message.putNull("stop_details");
        message.set("usage", usage(input, output));
        return message;
    }

    /** {@code usage} of a message: input split by caching, output so far, and the service tier. */
    static ObjectNode usage(InputUsage input, int output) {
        ObjectNode usage = JSON.objectNode();
        usage.put("input_tokens", input.inputTokens());
        usage.put("cache_creation_input_tokens", input.cacheCreation());
        usage.put("cache_read_input_tokens", input.cacheRead());
        ObjectNode creation = usage.putObject("cache_creation");
        creation.put("ephemeral_5m_input_tokens", input.cacheCreation5m());
        creation.put("ephemeral_1h_input_tokens", input.cacheCreation1h());
        usage.put("output_tokens", output);
        usage.put("service_tier", "standard");
        return usage;
    }

    /** {@code usage} of {@code message_delta}: cumulative totals for the whole message. */
    static ObjectNode deltaUsage(InputUsage input, int output) {
        ObjectNode usage = JSON.objectNode();
        usage.put("input_tokens", input.inputTokens());
        usage.put("cache_creation_input_tokens", input.cacheCreation());
        usage.put("cache_read_input_tokens", input.cacheRead());
        usage.put("output_tokens", output);
        return usage;
    }

    /**
     * A content block; {@code complete == false} gives the empty form {@code content_block_start}
     * carries (text, thinking and signature {@code ""}, tool input {@code {}}), which the deltas then fill.
     */
    static ObjectNode block(Reply.Block block, boolean complete) {
        ObjectNode node = JSON.objectNode();
        switch (block) {
            case Reply.Text text -> {
                node.put("type", "text");
                node.put("text", complete ? text.text() : "");
            }
            case Reply.Thinking thinking -> {
                node.put("type", "thinking");
                node.put("thinking", complete ? thinking.thinking() : "");
                node.put("signature", complete ? thinking.signature() : "");
            }
            case Reply.ToolUse tool -> {
                node.put("type", "tool_use");
                node.put("id", tool.id());
                node.put("name", tool.name());
                node.set("input", complete ? tool.input() : JSON.objectNode());
            }
        }
        return node;
    }

    static ObjectNode event(String type) {
        ObjectNode event = JSON.objectNode();
        event.put("type", type);
        return event;
    }

    /** The error body: {@code {"type":"error","error":{"type","message"},"request_id"}}. */
    static ObjectNode error(String type, String message, String requestId) {
        ObjectNode body = event("error");
        ObjectNode error = body.putObject("error");
        error.put("type", type);
        error.put("message", message);
        body.put("request_id", requestId);
        return body;
    }
}
