package app.talkide.controlplane.local.simulator;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The optional request fields the simulator does not act on (or acts on only a little), checked only
 * for the JSON type the real API insists on: sampling ({@code temperature}, {@code top_p},
 * {@code top_k}), {@code metadata}, {@code service_tier}, {@code tool_choice}, {@code thinking},
 * {@code context_management}, {@code output_config}. Their values are otherwise accepted as sent, and
 * fields not named here are ignored, so a new API feature never makes the simulator refuse a request
 * the real API takes.
 */
final class OptionalFields {

    private static final String[] OBJECTS = {
        "metadata", "tool_choice", "thinking", "context_management", "output_config"
    };

    /** What the request asks of extended thinking: {@code enabled} or {@code adaptive} turn it on. */
    record Thinking(boolean on) {
        static final Thinking OFF = new Thinking(false);
    }

    private OptionalFields() {}

    static void check(JsonNode root) {
        for (String name : OBJECTS) {
            JsonNode value = root.get(name);
            if (value != null && !value.isNull() && !value.isObject()) {
                throw ApiError.invalidRequest(name + ": Input should be a valid dictionary");
            }
        }
        number(root, "temperature", 0, 1);
        number(root, "top_p", 0, 1);
        JsonNode topK = root.get("top_k");
        if (topK != null && !topK.isNull() && !topK.isIntegralNumber()) {
            throw ApiError.invalidRequest("top_k: Input should be a valid integer");
        }
        JsonNode tier = root.get("service_tier");
        if (tier != null && !tier.isNull() && !tier.isString()) {
            throw ApiError.invalidRequest("service_tier: Input should be a valid string");
        }
        JsonNode userId = root.path("metadata").get("user_id");
        if (userId != null && !userId.isNull() && !userId.isString()) {
            throw ApiError.invalidRequest("metadata.user_id: Input should be a valid string");
        }
        JsonNode choice = root.get("tool_choice");
        if (choice != null && choice.isObject() && !choice.path("type").isString()) {
            throw ApiError.invalidRequest("tool_choice.type: Field required");
        }
    }

    /**
     * {@code thinking}: {@code {"type":"enabled","budget_tokens":N}} (N at least 1,024, as the real API
     * requires), {@code {"type":"adaptive"}} (the model decides; the simulator always thinks a little),
     * {@code {"type":"disabled"}}. Other types, and fields such as {@code display}, are accepted and
     * treated as off or ignored.
     */
    static Thinking thinking(@Nullable JsonNode thinking) {
        if (thinking == null || !thinking.isObject()) {
            return Thinking.OFF;
        }
        String type = thinking.path("type").asString("");
        if (type.equals("enabled")) {
            JsonNode budget = thinking.get("budget_tokens");
            if (budget == null || budget.isNull()) {
                throw ApiError.invalidRequest("thinking.enabled.budget_tokens: Field required");
            }
            if (!budget.isIntegralNumber()) {
                throw ApiError.invalidRequest("thinking.enabled.budget_tokens: Input should be a valid integer");
            }
            if (budget.asLong() < 1024) {
                throw ApiError.invalidRequest(
                        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
            }
            return new Thinking(true);
        }
        return new Thinking(type.equals("adaptive"));
    }

    private static void number(JsonNode root, String name, double min, double max) {
        JsonNode value = root.get(name);
        if (value == null || value.isNull()) {
            return;
        }
        if (!value.isNumber()) {
            throw ApiError.invalidRequest(name + ": Input should be a valid number");
        }
        if (value.asDouble() < min || value.asDouble() > max) {
            throw ApiError.invalidRequest(name + ": Input should be between " + (int) min + " and " + (int) max);
        }
    }
}
