package app.talkide.controlplane.local.simulator;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A validated Messages API request, reduced to what the simulator reads. Message content is always a
 * list of blocks: a plain string content arrives here as one text block.
 *
 * @param maxTokens the output limit; 0 for {@code count_tokens}, which has none
 * @param system the system blocks, in order (a plain string system prompt is one text block)
 * @param tools tool definitions as sent
 * @param toolChoice {@code tool_choice} as sent, if any
 * @param thinking whether the request turned extended thinking on
 */
record SimulatedRequest(
        String model,
        int maxTokens,
        boolean stream,
        List<JsonNode> system,
        List<Turn> messages,
        List<JsonNode> tools,
        @Nullable JsonNode toolChoice,
        List<String> stopSequences,
        OptionalFields.Thinking thinking) {

    /** One message: {@code user} or {@code assistant}, and its content blocks. */
    record Turn(String role, List<JsonNode> blocks) {

        boolean isUser() {
            return "user".equals(role);
        }

        /** The text of this turn's text blocks, joined by blank lines. */
        String text() {
            StringBuilder text = new StringBuilder();
            for (JsonNode block : blocks) {
                if ("text".equals(block.path("type").asString(""))) {
                    if (!text.isEmpty()) {
                        text.append("\n\n");
                    }
                    text.append(block.path("text").asString(""));
                }
            }
            return text.toString();
        }

        /**
         * The last text block's text: what the person typed. Engines put context (reminders, environment
         * notes) in text blocks before it, which the answer should not quote.
         */
        String lastText() {
            List<JsonNode> texts = blocksOfType("text");
            return texts.isEmpty() ? "" : texts.getLast().path("text").asString("");
        }

        List<JsonNode> blocksOfType(String type) {
            return blocks.stream()
                    .filter(block -> type.equals(block.path("type").asString("")))
                    .toList();
        }
    }

    /** The last user message: what the person (or the tool loop) just said. */
    Turn lastUserTurn() {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).isUser()) {
                return messages.get(i);
            }
        }
        // Validation requires at least one message; a conversation of assistant turns only gets an
        // empty prompt, as the real API would treat it as a continuation.
        return new Turn("user", List.of());
    }

    /**
     * Where the exchange being answered began: the last user message that is not a reply to tool
     * calls (it holds no {@code tool_result}), or -1 when there is none. Its markers govern every call
     * of the tool loop that follows it.
     */
    int promptIndex() {
        for (int i = messages.size() - 1; i >= 0; i--) {
            Turn turn = messages.get(i);
            if (turn.isUser() && turn.blocksOfType("tool_result").isEmpty()) {
                return i;
            }
        }
        return -1;
    }

    /** The message at {@link #promptIndex()}, or an empty one. */
    Turn promptTurn() {
        int index = promptIndex();
        return index < 0 ? new Turn("user", List.of()) : messages.get(index);
    }

    /** Blocks of {@code type} in the turns after the prompt: the tool loop so far. */
    List<JsonNode> sincePrompt(String type) {
        return messages.subList(promptIndex() + 1, messages.size()).stream()
                .flatMap(turn -> turn.blocksOfType(type).stream())
                .toList();
    }

    /** The name of the tool the assistant called with {@code toolUseId}, searched from the latest turn back. */
    Optional<String> toolNameOf(String toolUseId) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            for (JsonNode block : messages.get(i).blocksOfType("tool_use")) {
                if (toolUseId.equals(block.path("id").asString(""))) {
                    return Optional.of(block.path("name").asString("tool"));
                }
            }
        }
        return Optional.empty();
    }

    Optional<JsonNode> tool(String name) {
        return tools.stream()
                .filter(tool -> name.equals(tool.path("name").asString("")))
                .findFirst();
    }
}
