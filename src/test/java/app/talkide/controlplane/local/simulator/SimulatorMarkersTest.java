package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.first;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.names;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.request;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.streaming;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.text;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.local.simulator.SimulatorFixture.SseEvent;
import app.talkide.controlplane.support.TestHttp;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The documented prompt markers: tool calls, failures, lengths; and the tool loop that follows a call. */
class SimulatorMarkersTest {

    static final SimulatorFixture simulator = SimulatorFixture.unpaced();

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void toolUseMarkerStreamsATextBlockThenAToolCallWithItsInputInPieces() {
        List<SseEvent> events = simulator.stream(withWeatherTool(streaming("Weather in Prague? [[sim:tool_use]]")));

        List<SseEvent> starts = events.stream()
                .filter(e -> e.name().equals("content_block_start"))
                .toList();
        assertThat(starts).hasSize(2);
        assertThat(starts.get(0).data().path("content_block").path("type").asString())
                .isEqualTo("text");
        JsonNode toolBlock = starts.get(1).data().path("content_block");
        assertThat(starts.get(1).data().path("index").asInt()).isEqualTo(1);
        assertThat(toolBlock.path("type").asString()).isEqualTo("tool_use");
        assertThat(toolBlock.path("id").asString()).matches("toolu_01[1-9A-HJ-NP-Za-km-z]{22}");
        assertThat(toolBlock.path("name").asString()).isEqualTo("get_weather");
        assertThat(toolBlock.path("input").toString()).isEqualTo("{}");

        List<JsonNode> jsonDeltas = events.stream()
                .filter(e -> e.name().equals("content_block_delta"))
                .map(e -> e.data())
                .filter(d -> d.path("index").asInt() == 1)
                .toList();
        assertThat(jsonDeltas)
                .allSatisfy(
                        d -> assertThat(d.path("delta").path("type").asString()).isEqualTo("input_json_delta"));
        assertThat(jsonDeltas.getFirst().path("delta").path("partial_json").asString())
                .isEmpty();
        assertThat(jsonDeltas.size()).isGreaterThan(2);
        StringBuilder json = new StringBuilder();
        jsonDeltas.forEach(d -> json.append(d.path("delta").path("partial_json").asString()));
        assertThat(TestHttp.JSON.readTree(json.toString()).toString())
                .isEqualTo("{\"city\":\"Weather in Prague?\",\"days\":1}");

        assertThat(text(events)).isEqualTo("Simulated reply to “Weather in Prague?”. Calling the get_weather tool.");
        JsonNode messageDelta = first(events, "message_delta").data();
        assertThat(messageDelta.path("delta").path("stop_reason").asString()).isEqualTo("tool_use");
        int expected =
                TokenCounter.of(text(events)) + TokenCounter.of("get_weather") + TokenCounter.of(json.toString());
        assertThat(messageDelta.path("usage").path("output_tokens").asInt()).isEqualTo(expected);
    }

    @Test
    void toolUseMarkerCanNameTheToolAndGiveItsInput() {
        ObjectNode request = request("list files [[sim:tool_use=Bash {\"command\": \"ls -la\"}]]");
        ArrayNode tools = request.putArray("tools");
        tools.addObject().put("name", "Read").putObject("input_schema");
        tools.addObject().put("name", "Bash").putObject("input_schema");

        JsonNode message = simulator.post(MESSAGES, request).json();

        assertThat(message.path("stop_reason").asString()).isEqualTo("tool_use");
        JsonNode call = message.path("content").get(1);
        assertThat(call.path("name").asString()).isEqualTo("Bash");
        assertThat(call.path("input").toString()).isEqualTo("{\"command\":\"ls -la\"}");
    }

    @Test
    void aToolResultIsAnsweredInTextSoTheToolLoopEnds() {
        ObjectNode first = withWeatherTool(request("Weather in Prague? [[sim:tool_use]]"));
        JsonNode call = simulator.post(MESSAGES, first).json();
        String toolUseId = call.path("content").get(1).path("id").asString();

        ObjectNode followUp = first.deepCopy();
        ArrayNode messages = followUp.withArray("messages");
        messages.addObject().put("role", "assistant").set("content", call.path("content"));
        ObjectNode result =
                messages.addObject().put("role", "user").putArray("content").addObject();
        result.put("type", "tool_result").put("tool_use_id", toolUseId).put("content", "Sunny, 21 °C");

        JsonNode answer = simulator.post(MESSAGES, followUp).json();

        assertThat(answer.path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(answer.path("content")).hasSize(1);
        assertThat(answer.path("content").get(0).path("text").asString())
                .startsWith("The get_weather tool returned “Sunny, 21 °C”.");
    }

    @Test
    void aForcedToolChoiceCallsTheToolWithoutAMarker() {
        ObjectNode request = withWeatherTool(request("Just answer"));
        request.putObject("tool_choice").put("type", "tool").put("name", "get_weather");

        JsonNode message = simulator.post(MESSAGES, request).json();

        assertThat(message.path("stop_reason").asString()).isEqualTo("tool_use");
        assertThat(message.path("content").get(1).path("name").asString()).isEqualTo("get_weather");
    }

    @Test
    void aToolCallWithoutToolsIsExplainedInsteadOfMade() {
        JsonNode message =
                simulator.post(MESSAGES, request("Do it [[sim:tool_use]]")).json();

        assertThat(message.path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(message.path("content").get(0).path("text").asString())
                .isEqualTo("Simulated reply to “Do it”. A tool call was asked for, but the request offers no tools.");
    }

    @Test
    void overloadedMarkerFailsMidStreamWithAnErrorEventAndNoMessageStop() {
        HttpResponse<InputStream> response = simulator.open(MESSAGES, streaming("Break please [[sim:overloaded]]"));
        List<SseEvent> events = new ArrayList<>();
        SimulatorFixture.readEvents(response.body(), events::add);

        assertThat(response.statusCode()).isEqualTo(200);
        List<String> names = names(events);
        assertThat(names.subList(0, 4))
                .containsExactly("message_start", "content_block_start", "ping", "content_block_delta");
        assertThat(names.getLast()).isEqualTo("error");
        assertThat(names).doesNotContain("message_delta", "message_stop", "content_block_stop");
        JsonNode error = events.getLast().data();
        assertThat(error.path("error").path("type").asString()).isEqualTo("overloaded_error");
        assertThat(error.path("error").path("message").asString()).isEqualTo("Overloaded");
        assertThat(text(events)).startsWith("Simulated reply");
    }

    @Test
    void overloadedMarkerWithoutStreamingAnswers529() {
        TestHttp.Response response = simulator.post(MESSAGES, request("Break please [[sim:overloaded]]"));

        assertThat(response.status()).isEqualTo(529);
        assertThat(response.json().path("error").path("type").asString()).isEqualTo("overloaded_error");
        assertThat(response.header("x-should-retry")).isEqualTo("true");
    }

    @Test
    void statusMarkerRefusesWithThatStatusInAnthropicsShape() {
        TestHttp.Response limited = simulator.post(MESSAGES, streaming("[[sim:status=429]] too fast"));
        TestHttp.Response broken = simulator.post(MESSAGES, request("[[sim:status=500]]"));

        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("content-type")).isEqualTo("application/json");
        assertThat(limited.header("retry-after")).isEqualTo("1");
        assertThat(limited.json().path("type").asString()).isEqualTo("error");
        assertThat(limited.json().path("error").path("type").asString()).isEqualTo("rate_limit_error");
        assertThat(broken.status()).isEqualTo(500);
        assertThat(broken.json().path("error").path("type").asString()).isEqualTo("api_error");
    }

    @Test
    void lengthMarkerGivesAnAnswerOfExactlyThatManyTokens() {
        List<SseEvent> events =
                simulator.stream(streaming("Long one [[sim:length=700]]").put("max_tokens", 4096));

        assertThat(TokenCounter.of(text(events))).isEqualTo(700);
        assertThat(first(events, "message_delta")
                        .data()
                        .path("usage")
                        .path("output_tokens")
                        .asInt())
                .isEqualTo(700);
    }

    @Test
    void markersAreTakenOutOfTheQuotedPrompt() {
        assertThat(text(simulator.stream(streaming("[[sim:slow=1]]Quick [[sim:length=40]] question"))))
                .startsWith("Simulated reply to “Quick question”.");
    }

    @Test
    void recallMarkerCountsTheEarlierPromptsAndQuotesTheFirstSkippingToolResultsAndReminders() {
        ObjectNode request = request("ignored");
        ArrayNode messages = request.putArray("messages");
        ArrayNode first = messages.addObject().put("role", "user").putArray("content");
        // Engines put context before the typed prompt; the quote is the typed prompt, markers out.
        first.addObject().put("type", "text").put("text", "<system-reminder>context</system-reminder>");
        first.addObject().put("type", "text").put("text", "Look around [[sim:tool_use=Bash]]");
        messages.addObject()
                .put("role", "assistant")
                .putArray("content")
                .addObject()
                .put("type", "tool_use")
                .put("id", "toolu_1")
                .put("name", "Bash")
                .putObject("input");
        messages.addObject()
                .put("role", "user")
                .putArray("content")
                .addObject()
                .put("type", "tool_result")
                .put("tool_use_id", "toolu_1")
                .put("content", "a.txt");
        messages.addObject().put("role", "assistant").put("content", "Done.");
        messages.addObject().put("role", "user").put("content", "Take your time");
        messages.addObject().put("role", "assistant").put("content", "Sure.");
        messages.addObject().put("role", "user").put("content", "Are you back? [[sim:recall]]");

        assertThat(simulator
                        .post(MESSAGES, request)
                        .json()
                        .path("content")
                        .get(0)
                        .path("text")
                        .asString())
                .startsWith("Simulated reply to “Are you back?”. Earlier prompts: 2, the first “Look around”.");
        assertThat(simulator
                        .post(MESSAGES, request("Fresh start [[sim:recall]]"))
                        .json()
                        .path("content")
                        .get(0)
                        .path("text")
                        .asString())
                .startsWith("Simulated reply to “Fresh start”. Earlier prompts: none.");
    }

    @Test
    void anUnknownOrMalformedMarkerIsRefusedNotIgnored() {
        TestHttp.Response unknown = simulator.post(MESSAGES, request("[[sim:explode]]"));
        TestHttp.Response malformed = simulator.post(MESSAGES, request("[[sim:Slow]]"));
        TestHttp.Response badNumber = simulator.post(MESSAGES, request("[[sim:length=lots]]"));
        TestHttp.Response badStatus = simulator.post(MESSAGES, request("[[sim:status=418]]"));

        assertThat(List.of(unknown, malformed, badNumber, badStatus)).allSatisfy(response -> {
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.json().path("error").path("type").asString()).isEqualTo("invalid_request_error");
        });
        assertThat(unknown.json().path("error").path("message").asString())
                .contains("[[sim:explode]]")
                .contains("docs/simulator.md");
        assertThat(malformed.json().path("error").path("message").asString()).contains("[[sim:Slow]]");
    }

    private static ObjectNode withWeatherTool(ObjectNode request) {
        ObjectNode tool = request.putArray("tools").addObject();
        tool.put("name", "get_weather").put("description", "Current weather for a city");
        ObjectNode schema = tool.putObject("input_schema").put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("city").put("type", "string");
        properties.putObject("days").put("type", "integer");
        properties.putObject("units").put("type", "string");
        schema.putArray("required").add("city").add("days");
        return request;
    }
}
