package app.talkide.controlplane.conversation.compaction;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a client shows of a conversation, built from its events by the rules the console follows
 * (docs/conversations.md, "Compaction"): user messages in order, and per turn its blocks (text, or a tool
 * use with input and result) and how it ended. A folded block replaces the block of the same index.
 * Equal transcripts are what the user would see as the same conversation.
 */
final class ReferenceTranscript {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final List<String> messages = new ArrayList<>();
    private final Map<String, Turn> turns = new LinkedHashMap<>();
    private long lastSeq;

    /** Applies events in order, ignoring any at or below the last one applied (as the console does). */
    ReferenceTranscript apply(List<ConversationEvent> events) {
        events.forEach(this::apply);
        return this;
    }

    void apply(ConversationEvent event) {
        if (event.seq() <= lastSeq) {
            return;
        }
        lastSeq = event.seq();
        JsonNode data = JSON.readTree(event.data());
        switch (event.type()) {
            case "message.accepted" -> messages.add(text(data, "messageId") + ":" + text(data, "text"));
            case "turn.started" -> turn(data);
            case "text.delta" -> {
                Turn turn = turn(data);
                if (turn.openText == null) {
                    turn.openText = new StringBuilder();
                    turn.blocks.add(turn.openText);
                }
                turn.openText.append(text(data, "text"));
            }
            case "tool.started" -> {
                Turn turn = turn(data);
                turn.openText = null;
                turn.tools.put(text(data, "toolUseId"), turn.blocks.size());
                turn.blocks.add(new Tool(text(data, "name"), data.get("input"), false, null, null));
            }
            case "tool.completed" -> {
                Turn turn = turn(data);
                turn.openText = null;
                Integer index = turn.tools.get(text(data, "toolUseId"));
                Tool started = index == null ? null : (Tool) turn.blocks.get(index);
                Tool done = new Tool(
                        text(data, "name"),
                        started == null ? null : started.input(),
                        true,
                        data.get("isError"),
                        data.get("output"));
                if (index == null) {
                    turn.tools.put(text(data, "toolUseId"), turn.blocks.size());
                    turn.blocks.add(done);
                } else {
                    turn.blocks.set(index, done);
                }
            }
            case "text.block" -> folded(data, new StringBuilder(text(data, "text")));
            case "tool.block" ->
                folded(
                        data,
                        new Tool(
                                text(data, "name"),
                                data.get("input"),
                                data.has("completed"),
                                data.get("isError"),
                                data.get("output")));
            case "turn.completed", "turn.failed" -> turn(data).end = event.type();
            default -> {}
        }
    }

    private void folded(JsonNode data, Object block) {
        Turn turn = turn(data);
        turn.openText = null;
        int index = data.get("index").asInt();
        if (index < turn.blocks.size()) {
            turn.blocks.set(index, block);
        } else {
            turn.blocks.add(block);
        }
        if (block instanceof Tool) {
            turn.tools.put(text(data, "toolUseId"), index);
        }
    }

    private Turn turn(JsonNode data) {
        return turns.computeIfAbsent(text(data, "turnId"), id -> new Turn());
    }

    long lastSeq() {
        return lastSeq;
    }

    /** Comparable form: messages, then each turn with its blocks as text and its end. */
    List<String> lines() {
        List<String> lines = new ArrayList<>(messages);
        turns.forEach((id, turn) -> {
            lines.add("turn " + id + " ended " + turn.end);
            turn.blocks.forEach(block -> lines.add("  " + block));
        });
        return lines;
    }

    private static String text(JsonNode data, String field) {
        JsonNode value = data.get(field);
        return value == null || value.isNull() ? "" : value.asString();
    }

    private static final class Turn {
        final List<Object> blocks = new ArrayList<>();
        final Map<String, Integer> tools = new HashMap<>();
        StringBuilder openText;
        String end;
    }

    private record Tool(String name, JsonNode input, boolean completed, JsonNode isError, JsonNode output) {
        @Override
        public String toString() {
            return "tool " + name + " " + Objects.toString(input) + " completed=" + completed + " error="
                    + Objects.toString(isError) + " output=" + Objects.toString(output);
        }
    }
}
