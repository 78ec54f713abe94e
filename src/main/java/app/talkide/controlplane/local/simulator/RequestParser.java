package app.talkide.controlplane.local.simulator;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a request body into a {@link SimulatedRequest}, refusing what the real API refuses with the
 * same kind of message ({@code "max_tokens: Field required"}), so clients and the gateway meet the
 * errors they will meet in production.
 */
final class RequestParser {

    static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private RequestParser() {}

    /**
     * @param countTokens {@code true} for {@code /v1/messages/count_tokens}, which needs no {@code max_tokens}
     */
    static SimulatedRequest parse(byte[] body, boolean countTokens) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JacksonException e) {
            throw ApiError.invalidRequest("There was an error parsing the body of your request: not valid JSON ("
                    + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw ApiError.invalidRequest("The request body must be a JSON object");
        }
        String model = model(root);
        int maxTokens = countTokens ? 0 : maxTokens(root);
        boolean stream = !countTokens && booleanField(root, "stream");
        OptionalFields.check(root);
        return new SimulatedRequest(
                model,
                maxTokens,
                stream,
                system(root.get("system")),
                messages(root.get("messages")),
                tools(root.get("tools")),
                root.get("tool_choice"),
                stopSequences(root.get("stop_sequences")),
                OptionalFields.thinking(root.get("thinking")));
    }

    private static String model(JsonNode root) {
        JsonNode model = root.get("model");
        if (model == null || model.isNull()) {
            throw ApiError.invalidRequest("model: Field required");
        }
        if (!model.isString() || model.stringValue().isBlank()) {
            throw ApiError.invalidRequest("model: Input should be a valid string");
        }
        if (!model.stringValue().startsWith("claude-")) {
            // What the real API answers for a model it does not serve.
            throw new ApiError(404, "model: " + model.stringValue());
        }
        return model.stringValue();
    }

    private static int maxTokens(JsonNode root) {
        JsonNode maxTokens = root.get("max_tokens");
        if (maxTokens == null || maxTokens.isNull()) {
            throw ApiError.invalidRequest("max_tokens: Field required");
        }
        if (!maxTokens.isIntegralNumber() || !maxTokens.canConvertToInt()) {
            throw ApiError.invalidRequest("max_tokens: Input should be a valid integer");
        }
        if (maxTokens.intValue() < 1) {
            throw ApiError.invalidRequest("max_tokens: Input should be greater than or equal to 1");
        }
        return maxTokens.intValue();
    }

    private static boolean booleanField(JsonNode root, String name) {
        JsonNode value = root.get(name);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw ApiError.invalidRequest(name + ": Input should be a valid boolean");
        }
        return value.booleanValue();
    }

    private static List<JsonNode> system(JsonNode system) {
        if (system == null || system.isNull()) {
            return List.of();
        }
        if (system.isString()) {
            return List.of(textBlock(system.stringValue()));
        }
        if (!system.isArray()) {
            throw ApiError.invalidRequest("system: Input should be a valid string or list");
        }
        return blocks(system, "system");
    }

    private static List<SimulatedRequest.Turn> messages(JsonNode messages) {
        if (messages == null || messages.isNull()) {
            throw ApiError.invalidRequest("messages: Field required");
        }
        if (!messages.isArray()) {
            throw ApiError.invalidRequest("messages: Input should be a valid list");
        }
        if (messages.isEmpty()) {
            throw ApiError.invalidRequest("messages: at least one message is required");
        }
        List<SimulatedRequest.Turn> turns = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            String where = "messages." + i;
            JsonNode message = messages.get(i);
            if (!message.isObject()) {
                throw ApiError.invalidRequest(where + ": Input should be a valid dictionary");
            }
            String role = message.path("role").asString("");
            // "system" turns mid-conversation are what the engine's per-turn-control beta sends.
            if (!role.equals("user") && !role.equals("assistant") && !role.equals("system")) {
                throw ApiError.invalidRequest(where + ".role: Input should be 'user' or 'assistant'");
            }
            JsonNode content = message.get("content");
            if (content == null || content.isNull()) {
                throw ApiError.invalidRequest(where + ".content: Field required");
            }
            List<JsonNode> blocks = content.isString()
                    ? List.of(textBlock(content.stringValue()))
                    : blocks(content, where + ".content");
            turns.add(new SimulatedRequest.Turn(role, blocks));
        }
        return List.copyOf(turns);
    }

    private static List<JsonNode> blocks(JsonNode blocks, String where) {
        if (!blocks.isArray()) {
            throw ApiError.invalidRequest(where + ": Input should be a valid string or list");
        }
        List<JsonNode> list = new ArrayList<>(blocks.size());
        for (int i = 0; i < blocks.size(); i++) {
            JsonNode block = blocks.get(i);
            if (!block.isObject() || !block.path("type").isString()) {
                throw ApiError.invalidRequest(where + "." + i + ".type: Field required");
            }
            if ("text".equals(block.get("type").stringValue())
                    && !block.path("text").isString()) {
                throw ApiError.invalidRequest(where + "." + i + ".text: Field required");
            }
            list.add(block);
        }
        return List.copyOf(list);
    }

    private static List<JsonNode> tools(JsonNode tools) {
        if (tools == null || tools.isNull()) {
            return List.of();
        }
        if (!tools.isArray()) {
            throw ApiError.invalidRequest("tools: Input should be a valid list");
        }
        List<JsonNode> list = new ArrayList<>(tools.size());
        for (int i = 0; i < tools.size(); i++) {
            JsonNode tool = tools.get(i);
            if (!tool.isObject()) {
                throw ApiError.invalidRequest("tools." + i + ": Input should be a valid dictionary");
            }
            // Custom tools need a name; server tools (web search, code execution, MCP toolsets, ...)
            // are typed and configured in ways the simulator does not model, so they pass as they are.
            boolean custom =
                    !tool.has("type") || "custom".equals(tool.path("type").asString(""));
            if (custom && !tool.path("name").isString()) {
                throw ApiError.invalidRequest("tools." + i + ".name: Field required");
            }
            list.add(tool);
        }
        return List.copyOf(list);
    }

    private static List<String> stopSequences(JsonNode stopSequences) {
        if (stopSequences == null || stopSequences.isNull()) {
            return List.of();
        }
        if (!stopSequences.isArray()) {
            throw ApiError.invalidRequest("stop_sequences: Input should be a valid list");
        }
        List<String> list = new ArrayList<>();
        for (int i = 0; i < stopSequences.size(); i++) {
            JsonNode sequence = stopSequences.get(i);
            if (!sequence.isString() || sequence.stringValue().isEmpty()) {
                throw ApiError.invalidRequest("stop_sequences." + i + ": Input should be a non-empty string");
            }
            list.add(sequence.stringValue());
        }
        return List.copyOf(list);
    }

    private static ObjectNode textBlock(String text) {
        ObjectNode block = JsonNodeFactory.instance.objectNode();
        block.put("type", "text");
        block.put("text", text);
        return block;
    }
}
