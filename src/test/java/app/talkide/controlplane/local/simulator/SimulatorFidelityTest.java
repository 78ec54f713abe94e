package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.COUNT_TOKENS;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.first;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.names;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.request;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.streaming;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.local.simulator.SimulatorFixture.SseEvent;
import app.talkide.controlplane.support.TestHttp;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Answers shaped as the real API's: thinking blocks with signatures, usage that adds up, the Models API. */
class SimulatorFidelityTest {

    static final SimulatorFixture simulator = SimulatorFixture.unpaced();

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void withThinkingOnTheStreamOpensWithASignedThinkingBlock() {
        ObjectNode request = streaming("Think first");
        request.putObject("thinking").put("type", "adaptive");

        List<SseEvent> events = simulator.stream(request);

        JsonNode start = first(events, "content_block_start").data();
        assertThat(start.path("index").asInt()).isZero();
        assertThat(start.path("content_block").toString())
                .isEqualTo("{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}");
        List<JsonNode> deltas = events.stream()
                .filter(e -> e.name().equals("content_block_delta")
                        && e.data().path("index").asInt() == 0)
                .map(e -> e.data().path("delta"))
                .toList();
        assertThat(deltas.getFirst().path("type").asString()).isEqualTo("thinking_delta");
        assertThat(deltas.getLast().path("type").asString()).isEqualTo("signature_delta");
        assertThat(deltas.getLast().path("signature").asString()).isNotBlank();
        StringBuilder thinking = new StringBuilder();
        deltas.stream()
                .filter(d -> d.path("type").asString().equals("thinking_delta"))
                .forEach(d -> thinking.append(d.path("thinking").asString()));
        assertThat(thinking.toString()).contains("Think first");
        assertThat(SimulatorFixture.text(events)).startsWith("Simulated reply to “Think first”.");
        int output = first(events, "message_delta")
                .data()
                .path("usage")
                .path("output_tokens")
                .asInt();
        assertThat(output)
                .isEqualTo(TokenCounter.of(thinking.toString()) + TokenCounter.of(SimulatorFixture.text(events)));
    }

    @Test
    void aNonStreamingAnswerCarriesTheSameThinkingAndSignature() {
        ObjectNode request = request("Think first");
        request.putObject("thinking").put("type", "enabled").put("budget_tokens", 1024);

        JsonNode message = simulator.post(MESSAGES, request).json();

        JsonNode thinking = message.path("content").get(0);
        assertThat(thinking.path("type").asString()).isEqualTo("thinking");
        assertThat(thinking.path("thinking").asString()).contains("Think first");
        assertThat(thinking.path("signature").asString()).isNotBlank();
        assertThat(message.path("content").get(1).path("type").asString()).isEqualTo("text");
        assertThat(message.path("stop_reason").asString()).isEqualTo("end_turn");
    }

    @Test
    void maxTokensCountsThinkingAndCutsTheAnswer() {
        ObjectNode request = request("Think first").put("max_tokens", 5);
        request.putObject("thinking").put("type", "adaptive");

        JsonNode message = simulator.post(MESSAGES, request).json();

        assertThat(message.path("stop_reason").asString()).isEqualTo("max_tokens");
        assertThat(message.path("content")).hasSize(1);
        assertThat(message.path("content").get(0).path("type").asString()).isEqualTo("thinking");
        assertThat(message.path("usage").path("output_tokens").asInt()).isEqualTo(5);
    }

    @Test
    void usageInMessageStartIsCompleteAndMatchesCountTokens() {
        List<SseEvent> events = simulator.stream(streaming("Count me"));

        JsonNode usage = first(events, "message_start").data().path("message").path("usage");
        assertThat(usage.propertyNames())
                .contains(
                        "input_tokens",
                        "cache_creation_input_tokens",
                        "cache_read_input_tokens",
                        "cache_creation",
                        "output_tokens",
                        "service_tier");
        assertThat(usage.path("cache_creation").propertyNames())
                .containsExactlyInAnyOrder("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens");
        assertThat(names(events)).contains("ping");
        int counted = simulator
                .post(COUNT_TOKENS, request("Count me"))
                .json()
                .path("input_tokens")
                .asInt();
        assertThat(usage.path("input_tokens").asInt()).isEqualTo(counted);
    }

    @Test
    void theModelsApiListsModelsAndNamesOne() {
        TestHttp.Response list = simulator.http.get(
                "/v1/models?limit=20", "x-api-key", simulator.server.apiKey(), "anthropic-version", "2023-06-01");
        TestHttp.Response one = simulator.http.get(
                "/v1/models/claude-sonnet-4-5-20250929",
                "x-api-key",
                simulator.server.apiKey(),
                "anthropic-version",
                "2023-06-01");
        TestHttp.Response other = simulator.http.get(
                "/v1/models/gpt-4o", "x-api-key", simulator.server.apiKey(), "anthropic-version", "2023-06-01");
        TestHttp.Response anonymous = simulator.http.get("/v1/models", "anthropic-version", "2023-06-01");

        assertThat(list.status()).isEqualTo(200);
        JsonNode page = list.json();
        assertThat(page.path("data").size()).isPositive();
        assertThat(page.path("data").get(0).propertyNames())
                .containsExactly("type", "id", "display_name", "created_at");
        assertThat(page.path("has_more").asBoolean(true)).isFalse();
        assertThat(page.path("first_id").asString())
                .isEqualTo(page.path("data").get(0).path("id").asString());
        assertThat(one.json().path("display_name").asString()).isEqualTo("Claude Sonnet 4.5");
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.json().path("error").path("type").asString()).isEqualTo("not_found_error");
        assertThat(anonymous.status()).isEqualTo(401);
    }
}
