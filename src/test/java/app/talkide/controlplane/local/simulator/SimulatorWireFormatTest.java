package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.COUNT_TOKENS;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The Messages API wire format, checked on the raw bytes a client receives. */
class SimulatorWireFormatTest {

    static final SimulatorFixture simulator = SimulatorFixture.unpaced();

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void streamFollowsTheMessagesEventSequence() {
        List<SseEvent> events = simulator.stream(streaming("Hello there"));

        List<String> names = names(events);
        assertThat(names.subList(0, 3)).containsExactly("message_start", "content_block_start", "ping");
        assertThat(names.subList(names.size() - 3, names.size()))
                .containsExactly("content_block_stop", "message_delta", "message_stop");
        assertThat(names.subList(3, names.size() - 3)).isNotEmpty().containsOnly("content_block_delta");
        events.forEach(event -> assertThat(event.data().path("type").asString()).isEqualTo(event.name()));

        JsonNode message = first(events, "message_start").data().path("message");
        assertThat(message.path("id").asString()).matches("msg_01[1-9A-HJ-NP-Za-km-z]{22}");
        assertThat(message.path("type").asString()).isEqualTo("message");
        assertThat(message.path("role").asString()).isEqualTo("assistant");
        assertThat(message.path("model").asString()).isEqualTo(SimulatorFixture.MODEL);
        assertThat(message.path("content").isArray()).isTrue();
        assertThat(message.path("content")).isEmpty();
        assertThat(message.path("stop_reason").isNull()).isTrue();
        assertThat(message.path("stop_sequence").isNull()).isTrue();
        assertThat(message.path("usage").path("output_tokens").asInt()).isEqualTo(1);
        assertThat(message.path("usage").path("service_tier").asString()).isEqualTo("standard");

        JsonNode blockStart = first(events, "content_block_start").data();
        assertThat(blockStart.path("index").asInt()).isZero();
        assertThat(blockStart.path("content_block").toString()).isEqualTo("{\"type\":\"text\",\"text\":\"\"}");
        events.stream().filter(e -> e.name().equals("content_block_delta")).forEach(delta -> {
            assertThat(delta.data().path("index").asInt()).isZero();
            assertThat(delta.data().path("delta").path("type").asString()).isEqualTo("text_delta");
        });
        assertThat(text(events)).startsWith("Simulated reply to “Hello there”. ");

        JsonNode messageDelta = first(events, "message_delta").data();
        assertThat(messageDelta.path("delta").path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(messageDelta.path("delta").path("stop_sequence").isNull()).isTrue();
    }

    @Test
    void usageIsConsistentAcrossStartDeltaAndCountTokens() {
        List<SseEvent> events = simulator.stream(streaming("How many tokens is this prompt?"));
        JsonNode startUsage =
                first(events, "message_start").data().path("message").path("usage");
        JsonNode finalUsage = first(events, "message_delta").data().path("usage");
        int counted = simulator
                .post(COUNT_TOKENS, request("How many tokens is this prompt?"))
                .json()
                .path("input_tokens")
                .asInt();

        // 3 for the request, 3 for the message, 31 characters at 4 a token.
        assertThat(counted).isEqualTo(3 + 3 + 8);
        assertThat(startUsage.path("input_tokens").asInt()).isEqualTo(counted);
        assertThat(startUsage.path("cache_creation_input_tokens").asInt()).isZero();
        assertThat(startUsage.path("cache_read_input_tokens").asInt()).isZero();
        assertThat(finalUsage.path("input_tokens").asInt()).isEqualTo(counted);
        // Cumulative: the whole answer, not the last delta.
        String answer = text(events);
        assertThat(finalUsage.path("output_tokens").asInt())
                .isEqualTo((answer.codePointCount(0, answer.length()) + 3) / 4)
                .isGreaterThan(10);
    }

    @Test
    void eventsAreFramedExactlyAsServerSentEvents() throws Exception {
        HttpResponse<InputStream> response = simulator.open(MESSAGES, streaming("frames"));
        String raw = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream; charset=utf-8");
        assertThat(response.headers().firstValue("cache-control")).hasValue("no-cache");
        assertThat(response.headers().firstValue("request-id"))
                .hasValueSatisfying(id -> assertThat(id).matches("req_011C[1-9A-HJ-NP-Za-km-z]{20}"));
        assertThat(raw).matches("(event: [a-z_]+\ndata: \\{[^\n]*\\}\n\n)+");
        assertThat(raw)
                .startsWith("event: message_start\n")
                .endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    }

    @Test
    void nonStreamingAnswerIsTheSameReplyAsOneMessage() {
        String streamed = text(simulator.stream(streaming("Same words either way")));
        TestHttp.Response response = simulator.post(MESSAGES, request("Same words either way"));

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("content-type")).isEqualTo("application/json");
        assertThat(response.header("request-id")).startsWith("req_011C");
        JsonNode message = response.json();
        assertThat(message.path("type").asString()).isEqualTo("message");
        assertThat(message.path("role").asString()).isEqualTo("assistant");
        assertThat(message.path("content")).hasSize(1);
        assertThat(message.path("content").get(0).path("type").asString()).isEqualTo("text");
        assertThat(message.path("content").get(0).path("text").asString()).isEqualTo(streamed);
        assertThat(message.path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(message.path("usage").path("output_tokens").asInt())
                .isEqualTo((streamed.codePointCount(0, streamed.length()) + 3) / 4);
        assertThat(message.path("usage")
                        .path("cache_creation")
                        .path("ephemeral_5m_input_tokens")
                        .asInt())
                .isZero();
    }

    @Test
    void answersAreDeterministicAndDerivedFromThePrompt() {
        String first = text(simulator.stream(streaming("Explain the gateway")));
        String again = text(simulator.stream(streaming("Explain the gateway")));
        String other = text(simulator.stream(streaming("Explain the budget")));

        assertThat(again).isEqualTo(first);
        assertThat(first).startsWith("Simulated reply to “Explain the gateway”.");
        assertThat(other).startsWith("Simulated reply to “Explain the budget”.").isNotEqualTo(first);
    }

    @Test
    void theAnswerQuotesTheLastUserMessageOfAConversation() {
        ObjectNode conversation = streaming("first question");
        conversation.withArray("messages").addObject().put("role", "assistant").put("content", "first answer");
        ObjectNode second = conversation.withArray("messages").addObject().put("role", "user");
        second.putArray("content").addObject().put("type", "text").put("text", "second   question\nwith 😀 emoji");

        assertThat(text(simulator.stream(conversation)))
                .startsWith("Simulated reply to “second question with 😀 emoji”.");
    }

    @Test
    void countTokensGrowsWithSystemPromptAndTools() {
        ObjectNode plain = request("count me");
        plain.remove("max_tokens");
        int base =
                simulator.post(COUNT_TOKENS, plain).json().path("input_tokens").asInt();

        ObjectNode withSystem = plain.deepCopy().put("system", "x".repeat(400));
        ObjectNode withTools = plain.deepCopy();
        withTools.putArray("tools").addObject().put("name", "get_weather").putObject("input_schema");

        assertThat(simulator
                        .post(COUNT_TOKENS, withSystem)
                        .json()
                        .path("input_tokens")
                        .asInt())
                .isEqualTo(base + 100);
        assertThat(simulator
                        .post(COUNT_TOKENS, withTools)
                        .json()
                        .path("input_tokens")
                        .asInt())
                .isGreaterThan(base);
    }

    @Test
    void maxTokensCutsTheAnswerAndSaysSo() {
        List<SseEvent> events = simulator.stream(streaming("Tell me everything").put("max_tokens", 5));

        assertThat(text(events)).isEqualTo("Simulated reply to “").hasSize(20);
        JsonNode messageDelta = first(events, "message_delta").data();
        assertThat(messageDelta.path("delta").path("stop_reason").asString()).isEqualTo("max_tokens");
        assertThat(messageDelta.path("usage").path("output_tokens").asInt()).isEqualTo(5);
    }

    @Test
    void aStopSequenceEndsTheAnswerWhereItFirstAppears() {
        ObjectNode request = streaming("Stop early");
        request.putArray("stop_sequences").add("early").add("reply");
        List<SseEvent> events = simulator.stream(request);

        assertThat(text(events)).isEqualTo("Simulated ");
        JsonNode delta = first(events, "message_delta").data().path("delta");
        assertThat(delta.path("stop_reason").asString()).isEqualTo("stop_sequence");
        assertThat(delta.path("stop_sequence").asString()).isEqualTo("reply");
    }

    @Test
    void betaQueryAndBetaHeaderAreAccepted() {
        HttpResponse<InputStream> response = simulator.open(MESSAGES + "?beta=true", streaming("beta please"));
        List<SseEvent> events = new ArrayList<>();
        SimulatorFixture.readEvents(response.body(), events::add);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(names(events)).endsWith("message_stop");

        TestHttp.Response withHeader = simulator.post(
                MESSAGES + "?beta=true",
                request("beta header").toString(),
                "x-api-key",
                simulator.server.apiKey(),
                "anthropic-version",
                "2023-06-01",
                "anthropic-beta",
                "claude-code-20250219,interleaved-thinking-2025-05-14");
        assertThat(withHeader.status()).isEqualTo(200);
        assertThat(withHeader.json().path("content").get(0).path("text").asString())
                .startsWith("Simulated reply to “beta header”.");
    }
}
