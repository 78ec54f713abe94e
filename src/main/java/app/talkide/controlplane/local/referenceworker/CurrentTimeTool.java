package app.talkide.controlplane.local.referenceworker;

import java.time.Clock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The reference worker's one tool, so the tool-use loop and its {@code tool.started}/{@code tool.completed}
 * events run for real. A real worker has the Agent SDK's tools and MCP servers instead.
 */
final class CurrentTimeTool {

    record Result(String output, boolean isError) {}

    private final Clock clock;

    CurrentTimeTool(Clock clock) {
        this.clock = clock;
    }

    ArrayNode definitions() {
        ObjectNode schema = HttpExchanges.JSON.createObjectNode().put("type", "object");
        schema.set("properties", HttpExchanges.JSON.createObjectNode());
        ObjectNode currentTime = HttpExchanges.JSON
                .createObjectNode()
                .put("name", "current_time")
                .put("description", "The current date and time in UTC, ISO-8601.");
        currentTime.set("input_schema", schema);
        return HttpExchanges.JSON.createArrayNode().add(currentTime);
    }

    Result run(String name, JsonNode input) {
        if (name.equals("current_time")) {
            return new Result(clock.instant().toString(), false);
        }
        return new Result("unknown tool: " + name, true);
    }
}
