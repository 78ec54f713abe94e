package app.talkide.controlplane.conversation.compaction;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Folds the streamed pieces of ended turns into one event per content block. A block is what the console
 * shows as one piece: a run of {@code text.delta} of a turn not interrupted by a tool, or one tool use
 * ({@code tool.started} and its {@code tool.completed}). Blocks are numbered per turn in the order they
 * start, the same rule the console applies to the raw events, so a folded block names the block it
 * replaces. The folded event takes the sequence number of the block's last piece: a client that resumes
 * from inside the block (it has part of it) reads the folded event next and replaces what it had.
 */
final class TurnFolder {

    static final String TEXT_BLOCK = "text.block";
    static final String TOOL_BLOCK = "tool.block";
    /** The raw types a fold removes; every one of them in a folded range is either rewritten or deleted. */
    static final Set<String> FOLDED_TYPES = Set.of("text.delta", "tool.started", "tool.completed");

    private final JsonMapper json;

    TurnFolder(JsonMapper json) {
        this.json = json;
    }

    /** A row to overwrite in place with its block's folded event. */
    record Rewrite(long seq, String fromType, String type, String data) {}

    /** Folds every block in the range (the caller passes only ranges whose turns all ended). */
    List<Rewrite> fold(List<ConversationEvent> range) {
        Map<String, List<Block>> turns = new LinkedHashMap<>();
        Map<String, Block> openText = new HashMap<>();
        Map<String, Block> tools = new HashMap<>();
        for (ConversationEvent event : range) {
            if (!FOLDED_TYPES.contains(event.type())) {
                continue;
            }
            JsonNode data = parse(event.data());
            String turnId = text(data, "turnId");
            List<Block> blocks = turns.computeIfAbsent(turnId, id -> new ArrayList<>());
            switch (event.type()) {
                case "text.delta" -> {
                    Block block = openText.get(turnId);
                    if (block == null) {
                        block = new Block(turnId, blocks.size(), event, data);
                        blocks.add(block);
                        openText.put(turnId, block);
                    }
                    block.text.append(text(data, "text"));
                    block.last = event;
                }
                case "tool.started" -> {
                    openText.remove(turnId);
                    Block block = new Block(turnId, blocks.size(), event, data);
                    block.started = data;
                    blocks.add(block);
                    tools.put(turnId + "\n" + text(data, "toolUseId"), block);
                }
                default -> {
                    openText.remove(turnId);
                    Block block = tools.remove(turnId + "\n" + text(data, "toolUseId"));
                    if (block == null) {
                        block = new Block(turnId, blocks.size(), event, data);
                        blocks.add(block);
                    }
                    block.completed = data;
                    block.last = event;
                }
            }
        }
        List<Rewrite> rewrites = new ArrayList<>();
        turns.values().forEach(blocks -> blocks.forEach(block -> rewrites.add(rewrite(block))));
        rewrites.sort((a, b) -> Long.compare(a.seq(), b.seq()));
        return rewrites;
    }

    private Rewrite rewrite(Block block) {
        ObjectNode folded = json.createObjectNode();
        folded.put("turnId", block.turnId);
        JsonNode messageId = block.firstData.get("messageId");
        if (messageId != null && messageId.isString()) {
            folded.put("messageId", messageId.asString());
        }
        folded.put("index", block.index);
        folded.put("fromSeq", block.first.seq());
        String type;
        if (block.started == null && block.completed == null) {
            type = TEXT_BLOCK;
            folded.put("text", block.text.toString());
        } else {
            type = TOOL_BLOCK;
            JsonNode from = block.started != null ? block.started : block.completed;
            folded.set("toolUseId", from.get("toolUseId"));
            folded.set("name", from.get("name"));
            if (block.started != null && block.started.has("input")) {
                folded.set("input", block.started.get("input"));
            }
            if (block.completed != null) {
                folded.put("completed", true);
                folded.set("isError", block.completed.get("isError"));
                if (block.completed.has("output")) {
                    folded.set("output", block.completed.get("output"));
                }
            }
        }
        return new Rewrite(block.last.seq(), block.last.type(), type, json.writeValueAsString(folded));
    }

    private JsonNode parse(String data) {
        try {
            JsonNode node = json.readTree(data);
            return node != null && node.isObject() ? node : json.createObjectNode();
        } catch (RuntimeException notJson) {
            // The worker side drops events that are not JSON objects; anything else folds as an empty piece.
            return json.createObjectNode();
        }
    }

    private static String text(JsonNode data, String field) {
        JsonNode value = data.get(field);
        return value == null || value.isNull() ? "" : value.asString();
    }

    private static final class Block {
        final String turnId;
        final int index;
        final ConversationEvent first;
        final JsonNode firstData;
        final StringBuilder text = new StringBuilder();
        ConversationEvent last;

        @Nullable
        JsonNode started;

        @Nullable
        JsonNode completed;

        Block(String turnId, int index, ConversationEvent first, JsonNode firstData) {
            this.turnId = turnId;
            this.index = index;
            this.first = first;
            this.firstData = firstData;
            this.last = first;
        }
    }
}
