package app.talkide.controlplane.local.referenceworker;

import app.talkide.controlplane.workercontract.SseEventReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads one streamed model answer: emits its text as {@code text.delta} events as it arrives, collects its
 * content blocks (text and tool uses, with their streamed JSON input) for the transcript, and adds its
 * token counts to the turn's usage.
 */
final class ModelReplyReader {

    private ModelReplyReader() {}

    static ModelReply read(Session session, RunningTurn turn, SseEventReader reader, Usage usage)
            throws IOException, TurnFailure {
        ModelReply reply = new ModelReply();
        List<ObjectNode> blocks = new ArrayList<>();
        List<StringBuilder> partialJson = new ArrayList<>();
        SseEventReader.SseEvent event;
        boolean stopped = false;
        while ((event = reader.next()) != null) {
            JsonNode data = HttpExchanges.JSON.readTree(event.data());
            // An event without an "event:" line is named by its JSON "type", as the Messages API's are.
            String name = event.type().equals("message") ? data.path("type").asString("") : event.type();
            switch (name) {
                case "message_start" -> usage.add(data.path("message").path("usage"), false);
                case "content_block_start" -> {
                    blocks.add(((ObjectNode) data.path("content_block")).deepCopy());
                    partialJson.add(new StringBuilder());
                }
                case "content_block_delta" -> {
                    int index = Math.min(data.path("index").asInt(0), blocks.size() - 1);
                    JsonNode delta = data.path("delta");
                    if (delta.path("type").asString("").equals("text_delta") && index >= 0) {
                        String text = delta.path("text").asString("");
                        ObjectNode block = blocks.get(index);
                        block.put("text", block.path("text").asString("") + text);
                        session.emit("text.delta", TurnRunner.turnData(turn).put("text", text));
                    } else if (delta.path("type").asString("").equals("input_json_delta") && index >= 0) {
                        partialJson.get(index).append(delta.path("partial_json").asString(""));
                    }
                }
                case "message_delta" -> {
                    reply.stopReason = data.path("delta").path("stop_reason").asString(null);
                    usage.add(data.path("usage"), true);
                }
                case "message_stop" -> stopped = true;
                case "error" -> throw streamError(data.path("error"));
                default -> {
                    // ping and future event types carry nothing a turn needs
                }
            }
            if (stopped) {
                break;
            }
        }
        if (!stopped) {
            throw new IOException("the model stream ended before message_stop");
        }
        ArrayNode content = HttpExchanges.JSON.createArrayNode();
        for (int i = 0; i < blocks.size(); i++) {
            ObjectNode block = blocks.get(i);
            if (block.path("type").asString("").equals("tool_use")) {
                String json = partialJson.get(i).toString();
                block.set(
                        "input",
                        json.isBlank() ? HttpExchanges.JSON.createObjectNode() : HttpExchanges.JSON.readTree(json));
                reply.toolUses.add(block);
            }
            content.add(block);
        }
        reply.content = content;
        return reply;
    }

    /**
     * An {@code error} event after the stream started. The gateway ends a stream whose spending limit ran
     * out mid-answer with a {@code rate_limit_error} that says so (no header can be sent any more).
     */
    private static TurnFailure streamError(JsonNode error) {
        String message = error.path("message").asString("unknown");
        if (error.path("type").asString("").equals("rate_limit_error")
                && message.toLowerCase(java.util.Locale.ROOT).contains("spending limit")) {
            return new TurnFailure(TurnFailure.BUDGET_EXCEEDED, message);
        }
        return new TurnFailure(TurnFailure.UPSTREAM_ERROR, "The model stream ended with an error: " + message);
    }

    static final class ModelReply {
        String stopReason;
        ArrayNode content;
        final List<ObjectNode> toolUses = new ArrayList<>();
    }

    /** Token counts summed over the turn's model calls ({@code message_delta} counts are cumulative). */
    static final class Usage {
        long input;
        long output;
        long cacheCreation;
        long cacheRead;
        private long callOutput;

        void add(JsonNode usage, boolean delta) {
            if (usage.isMissingNode() || usage.isNull()) {
                return;
            }
            if (!delta) {
                input += usage.path("input_tokens").asLong(0);
                cacheCreation += usage.path("cache_creation_input_tokens").asLong(0);
                cacheRead += usage.path("cache_read_input_tokens").asLong(0);
                callOutput = 0;
            }
            long cumulative = usage.path("output_tokens").asLong(callOutput);
            output += cumulative - callOutput;
            callOutput = cumulative;
        }

        ObjectNode toJson() {
            return HttpExchanges.JSON
                    .createObjectNode()
                    .put("inputTokens", input)
                    .put("outputTokens", output)
                    .put("cacheCreationInputTokens", cacheCreation)
                    .put("cacheReadInputTokens", cacheRead);
        }
    }
}
