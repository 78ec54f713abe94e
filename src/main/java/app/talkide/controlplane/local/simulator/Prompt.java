package app.talkide.controlplane.local.simulator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request as the tokenizer and the prompt cache see it: its parts in the order the real API caches
 * them (tools, system, messages), each with its token count, and a hash of everything up to and
 * including it, so two requests sharing a prefix share the hashes of that prefix.
 *
 * <p>Counting: every text at {@link TokenCounter four characters a token} (tool definitions as their JSON),
 * images and documents {@value #MEDIA_TOKENS} tokens each, plus {@value #MESSAGE_OVERHEAD} tokens per
 * message and {@value #REQUEST_OVERHEAD} per request for the framing.
 */
record Prompt(List<Segment> segments) {

    static final int REQUEST_OVERHEAD = 3;
    static final int MESSAGE_OVERHEAD = 3;
    static final int MEDIA_TOKENS = 1_500;
    static final int MAX_CACHE_BREAKPOINTS = 4;

    /**
     * @param prefixHash hex SHA-256 over this segment and all before it
     * @param breakpoint set when the part carries {@code cache_control}
     */
    record Segment(int tokens, String prefixHash, @Nullable CacheTtl breakpoint) {}

    int totalTokens() {
        return segments.stream().mapToInt(Segment::tokens).sum();
    }

    static Prompt of(SimulatedRequest request) {
        Builder prompt = new Builder();
        // The cache is per model, so the model is part of every prefix.
        prompt.add(REQUEST_OVERHEAD, "model:" + request.model(), null);
        for (int i = 0; i < request.tools().size(); i++) {
            JsonNode tool = request.tools().get(i);
            String definition = withoutCacheControl(tool);
            prompt.add(TokenCounter.of(definition), definition, CacheTtl.of(tool, "tools." + i));
        }
        for (int i = 0; i < request.system().size(); i++) {
            JsonNode block = request.system().get(i);
            prompt.add(tokens(block), withoutCacheControl(block), CacheTtl.of(block, "system." + i));
        }
        for (int m = 0; m < request.messages().size(); m++) {
            SimulatedRequest.Turn turn = request.messages().get(m);
            prompt.add(MESSAGE_OVERHEAD, "role:" + turn.role(), null);
            for (int b = 0; b < turn.blocks().size(); b++) {
                JsonNode block = turn.blocks().get(b);
                prompt.add(
                        tokens(block),
                        withoutCacheControl(block),
                        CacheTtl.of(block, "messages." + m + ".content." + b));
            }
        }
        return prompt.build();
    }

    /** What a content block costs: its text, or a flat rate for media. */
    static int tokens(JsonNode block) {
        return switch (block.path("type").asString("")) {
            case "image", "document" -> MEDIA_TOKENS;
            default -> TokenCounter.of(text(block));
        };
    }

    private static String text(JsonNode block) {
        return switch (block.path("type").asString("")) {
            case "text" -> block.path("text").asString("");
            case "tool_use", "server_tool_use" ->
                block.path("name").asString("") + block.path("input").toString();
            case "tool_result" -> {
                JsonNode content = block.path("content");
                if (content.isString()) {
                    yield content.stringValue();
                }
                StringBuilder text = new StringBuilder();
                content.forEach(part -> text.append(text(part)));
                yield text.toString();
            }
            case "thinking" -> block.path("thinking").asString("");
            case "redacted_thinking" -> block.path("data").asString("");
            default -> block.toString();
        };
    }

    private static String withoutCacheControl(JsonNode node) {
        if (node instanceof ObjectNode object && object.has("cache_control")) {
            ObjectNode copy = object.deepCopy();
            copy.remove("cache_control");
            return copy.toString();
        }
        return node.toString();
    }

    private static final class Builder {

        private final List<Segment> segments = new ArrayList<>();
        private final MessageDigest sha256;
        private byte[] previous = new byte[0];
        private int breakpoints;

        Builder() {
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("Every JVM has SHA-256", e);
            }
        }

        void add(int tokens, String content, @Nullable CacheTtl breakpoint) {
            if (breakpoint != null) {
                breakpoints++;
            }
            sha256.update(previous);
            sha256.update(content.getBytes(StandardCharsets.UTF_8));
            previous = sha256.digest();
            segments.add(new Segment(tokens, HexFormat.of().formatHex(previous), breakpoint));
        }

        Prompt build() {
            if (breakpoints > MAX_CACHE_BREAKPOINTS) {
                throw ApiError.invalidRequest("A maximum of " + MAX_CACHE_BREAKPOINTS
                        + " blocks with cache_control may be provided. Found " + breakpoints + ".");
            }
            return new Prompt(List.copyOf(segments));
        }
    }
}
