package app.talkide.controlplane.local.simulator;

import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What the simulated model answers: its content blocks, why it stopped, and what the answer costs in
 * output tokens. Streaming and non-streaming responses are two renderings of the same reply.
 */
record Reply(
        List<Block> blocks, String stopReason, @Nullable String stopSequence) {

    sealed interface Block {
        int outputTokens();
    }

    record Text(String text) implements Block {
        @Override
        public int outputTokens() {
            return TokenCounter.of(text);
        }
    }

    /**
     * Extended thinking, sent before the answer when the request turns thinking on. The signature is
     * opaque to clients, which send it back with the block; here it is a digest of the text.
     */
    record Thinking(String thinking, String signature) implements Block {
        @Override
        public int outputTokens() {
            return TokenCounter.of(thinking);
        }
    }

    record ToolUse(String id, String name, JsonNode input) implements Block {

        String inputJson() {
            return input.toString();
        }

        @Override
        public int outputTokens() {
            return TokenCounter.of(name) + TokenCounter.of(inputJson());
        }
    }

    int outputTokens() {
        return blocks.stream().mapToInt(Block::outputTokens).sum();
    }
}
