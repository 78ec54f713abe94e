package app.talkide.controlplane.gateway;

import java.util.ArrayList;
import java.util.List;

/** Messages API bodies as the real API sends them: streams event by event, and whole JSON answers. */
public final class AnthropicFixtures {

    public static final String OPUS = "claude-opus-4-5-20251101";

    private AnthropicFixtures() {}

    public static String request(String model, boolean stream, int maxTokens) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Hello, Mara\"}]}";
    }

    public static String messageStart(String model, String usage) {
        return event(
                "message_start",
                "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\","
                        + "\"model\":\"" + model + "\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
                        + "\"usage\":" + usage + "}}");
    }

    public static String textDelta(int index, String text) {
        return event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"index\":" + index
                        + ",\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}");
    }

    public static String messageDelta(long outputTokens) {
        return event(
                "message_delta",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
                        + "\"usage\":{\"output_tokens\":" + outputTokens + "}}");
    }

    public static String event(String type, String data) {
        return "event: " + type + "\ndata: " + data + "\n\n";
    }

    /** A whole stream as a list of events: start, text block of {@code deltas} deltas, delta, stop. */
    public static List<String> textStream(String model, String usage, int deltas, String text, long outputTokens) {
        List<String> events = new ArrayList<>();
        events.add(messageStart(model, usage));
        events.add(event(
                "content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"));
        events.add(event("ping", "{\"type\": \"ping\"}"));
        for (int i = 0; i < deltas; i++) {
            events.add(textDelta(0, text));
        }
        events.add(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
        events.add(messageDelta(outputTokens));
        events.add(event("message_stop", "{\"type\":\"message_stop\"}"));
        return events;
    }

    public static String usage(long input, long cacheWrite, long cacheRead, long output) {
        return "{\"input_tokens\":" + input + ",\"cache_creation_input_tokens\":" + cacheWrite
                + ",\"cache_read_input_tokens\":" + cacheRead + ",\"output_tokens\":" + output + "}";
    }

    public static String json(String model, String usage) {
        return "{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"" + model + "\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"Hi! How can I help?\"}],\"stop_reason\":\"end_turn\","
                + "\"stop_sequence\":null,\"usage\":" + usage + "}";
    }
}
