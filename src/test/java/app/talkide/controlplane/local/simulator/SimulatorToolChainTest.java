package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Several {@code [[sim:tool_use=…]]} markers in one prompt run as a chain, one call per model call,
 * driven the way an agent's tool loop drives it: each answer's tool call is run and its result sent
 * back with the whole conversation.
 */
class SimulatorToolChainTest {

    static final SimulatorFixture simulator = SimulatorFixture.unpaced();

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void markersRunInOrderOneCallPerModelCallThenTheAnswerQuotesEveryResult() {
        ObjectNode request = withTools(
                request(
                        "Look around [[sim:tool_use=Bash {\"command\":\"ls\"}]]"
                                + " then [[sim:tool_use=Read {\"file_path\":\"a.txt\"}]] and [[sim:tool_use=Bash {\"command\":\"pwd\"}]]"));
        List<String> calls = new ArrayList<>();
        List<String> results = List.of("a.txt b.txt", "hello from a", "/tmp/work");

        JsonNode answer = simulator.post(MESSAGES, request).json();
        for (int turn = 0; "tool_use".equals(answer.path("stop_reason").asString()); turn++) {
            assertThat(turn).as("more model calls than markers").isLessThan(3);
            JsonNode call = answer.path("content").get(answer.path("content").size() - 1);
            assertThat(call.path("type").asString()).isEqualTo("tool_use");
            calls.add(call.path("name").asString() + " " + call.path("input"));
            ArrayNode messages = request.withArray("messages");
            messages.addObject().put("role", "assistant").set("content", answer.path("content"));
            ArrayNode reply = messages.addObject().put("role", "user").putArray("content");
            // The engine adds context text next to its tool results; it must not restart the chain.
            reply.addObject()
                    .put("type", "tool_result")
                    .put("tool_use_id", call.path("id").asString())
                    .put("content", results.get(turn));
            reply.addObject().put("type", "text").put("text", "<system-reminder>note</system-reminder>");
            answer = simulator.post(MESSAGES, request).json();
        }

        assertThat(calls)
                .containsExactly(
                        "Bash {\"command\":\"ls\"}", "Read {\"file_path\":\"a.txt\"}", "Bash {\"command\":\"pwd\"}");
        assertThat(answer.path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(answer.path("content").get(0).path("text").asString())
                .startsWith("The Bash tool returned “a.txt b.txt”. The Read tool returned “hello from a”."
                        + " The Bash tool returned “/tmp/work”.");
    }

    @Test
    void theSecondCallOfAChainSaysWhatTheFirstReturned() {
        ObjectNode request = withTools(request("[[sim:tool_use=Bash]] [[sim:tool_use=Read]]"));
        JsonNode first = simulator.post(MESSAGES, request).json();
        ArrayNode messages = request.withArray("messages");
        messages.addObject().put("role", "assistant").set("content", first.path("content"));
        messages.addObject()
                .put("role", "user")
                .putArray("content")
                .addObject()
                .put("type", "tool_result")
                .put("tool_use_id", first.path("content").get(1).path("id").asString())
                .put("is_error", true)
                .put("content", "permission denied");

        JsonNode second = simulator.post(MESSAGES, request).json();

        assertThat(second.path("stop_reason").asString()).isEqualTo("tool_use");
        assertThat(second.path("content").get(0).path("text").asString())
                .isEqualTo("The Bash tool failed: “permission denied”. Calling the Read tool.");
        assertThat(second.path("content").get(1).path("name").asString()).isEqualTo("Read");
        assertThat(second.path("content").get(1).path("input").toString()).isEqualTo("{\"file_path\":\"simulated\"}");
    }

    @Test
    void aNewPromptStartsANewChain() {
        ObjectNode request = withTools(request("[[sim:tool_use=Bash]]"));
        JsonNode first = simulator.post(MESSAGES, request).json();
        ArrayNode messages = request.withArray("messages");
        messages.addObject().put("role", "assistant").set("content", first.path("content"));
        messages.addObject()
                .put("role", "user")
                .putArray("content")
                .addObject()
                .put("type", "tool_result")
                .put("tool_use_id", first.path("content").get(1).path("id").asString())
                .put("content", "done");
        messages.addObject().put("role", "assistant").put("content", "It is done.");
        messages.addObject().put("role", "user").put("content", "Again [[sim:tool_use=Bash]]");

        JsonNode again = simulator.post(MESSAGES, request).json();

        assertThat(again.path("stop_reason").asString()).isEqualTo("tool_use");
        assertThat(again.path("content").get(0).path("text").asString()).startsWith("Simulated reply to “Again”.");
    }

    private static ObjectNode withTools(ObjectNode request) {
        ArrayNode tools = request.putArray("tools");
        tools.addObject().put("name", "Bash").putObject("input_schema").put("type", "object");
        ObjectNode read = tools.addObject().put("name", "Read").putObject("input_schema");
        read.put("type", "object").putArray("required").add("file_path");
        read.putObject("properties").putObject("file_path").put("type", "string");
        return request;
    }
}
