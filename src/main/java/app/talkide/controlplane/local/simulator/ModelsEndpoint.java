package app.talkide.controlplane.local.simulator;

import java.util.List;
import java.util.Locale;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /v1/models} and {@code GET /v1/models/{id}}, shaped as the real Models API answers: a page
 * of model objects ({@code type}, {@code id}, {@code display_name}, {@code created_at}) with
 * {@code has_more}, {@code first_id}, {@code last_id}. The list names a few current models of each
 * family; like the messages endpoint, any {@code claude-…} id is served, others are {@code 404}.
 */
final class ModelsEndpoint {

    /** Newest first, as the real list is ordered. */
    static final List<String> MODELS =
            List.of("claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1");

    private static final String CREATED_AT = "2025-01-01T00:00:00Z";

    private ModelsEndpoint() {}

    static ObjectNode list() {
        ObjectNode page = JsonNodeFactory.instance.objectNode();
        ArrayNode data = page.putArray("data");
        MODELS.forEach(id -> data.add(model(id)));
        page.put("has_more", false);
        page.put("first_id", MODELS.getFirst());
        page.put("last_id", MODELS.getLast());
        return page;
    }

    static ObjectNode one(String id) {
        if (!id.startsWith("claude-")) {
            throw new ApiError(404, "model: " + id);
        }
        return model(id);
    }

    private static ObjectNode model(String id) {
        ObjectNode model = JsonNodeFactory.instance.objectNode();
        model.put("type", "model");
        model.put("id", id);
        model.put("display_name", displayName(id));
        model.put("created_at", CREATED_AT);
        return model;
    }

    /** {@code claude-sonnet-4-5} → {@code Claude Sonnet 4.5}. */
    static String displayName(String id) {
        StringBuilder name = new StringBuilder();
        String separator = "";
        boolean version = false;
        for (String part : id.split("-")) {
            if (part.isEmpty() || part.length() >= 8 && part.chars().allMatch(Character::isDigit)) {
                continue; // a snapshot date is not part of the name
            }
            boolean digits = part.chars().allMatch(Character::isDigit);
            name.append(version && digits ? "." : separator)
                    .append(digits ? part : part.substring(0, 1).toUpperCase(Locale.ROOT) + part.substring(1));
            version = digits;
            separator = " ";
        }
        return name.toString();
    }
}
