package app.talkide.controlplane.local.simulator;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A plausible, deterministic input for a tool, read off its {@code input_schema}: every required
 * property (every property when none is marked required) gets a value of its type; strings get the
 * first enum value or the prompt.
 */
final class ToolInputs {

    private ToolInputs() {}

    static ObjectNode derive(JsonNode tool, String prompt) {
        JsonNodeFactory json = JsonNodeFactory.instance;
        ObjectNode input = json.objectNode();
        JsonNode schema = tool.path("input_schema");
        JsonNode properties = schema.path("properties");
        if (!properties.isObject()) {
            return input;
        }
        List<String> names = new ArrayList<>();
        schema.path("required").forEach(name -> names.add(name.asString("")));
        if (names.isEmpty()) {
            names.addAll(properties.propertyNames());
        }
        String text = prompt.isBlank() ? "simulated" : prompt;
        for (String name : names) {
            JsonNode property = properties.path(name);
            switch (property.path("type").asString("string")) {
                case "integer", "number" -> input.put(name, 1);
                case "boolean" -> input.put(name, true);
                case "array" -> input.putArray(name);
                case "object" -> input.putObject(name);
                default -> {
                    JsonNode options = property.path("enum");
                    input.put(
                            name,
                            options.isArray() && !options.isEmpty()
                                    ? options.get(0).asString(text)
                                    : text);
                }
            }
        }
        return input;
    }
}
