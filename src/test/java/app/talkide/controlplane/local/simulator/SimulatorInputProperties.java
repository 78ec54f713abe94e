package app.talkide.controlplane.local.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Hostile and random input for the simulator's parsers and the invariants its answers rest on: any body
 * is either answered or refused with an {@link ApiError} (never another exception, so never a 500), and
 * the pieces a stream is cut into always join back to the answer.
 */
class SimulatorInputProperties {

    static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Property(tries = 2000)
    void anyTextIsAPromptOrARefusedMarker(@ForAll("promptish") String prompt) {
        try {
            PromptMarkers markers = PromptMarkers.in(prompt, Duration.ofMillis(10));
            assertThat(PromptMarkers.strip(prompt)).doesNotContain("[[sim:");
            assertThat(markers).isNotNull();
        } catch (ApiError refused) {
            assertThat(refused.status()).isEqualTo(400);
        }
    }

    @Property(tries = 1000)
    void anyBodyIsAnsweredOrRefusedCleanly(@ForAll String body) {
        answerOrRefuse(body.getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 500)
    void anyRequestShapedBodyIsAnsweredOrRefusedCleanly(
            @ForAll("anyJson") JsonNode model,
            @ForAll("anyJson") JsonNode maxTokens,
            @ForAll("anyJson") JsonNode messages,
            @ForAll("anyJson") JsonNode system,
            @ForAll("anyJson") JsonNode tools,
            @ForAll("anyJson") JsonNode stopSequences,
            @ForAll("anyJson") JsonNode toolChoice) {
        ObjectNode request = SimulatorFixture.request("hello [[sim:tool_use]]");
        request.set("model", model.isNull() ? request.get("model") : model);
        request.set("max_tokens", maxTokens.isNull() ? request.get("max_tokens") : maxTokens);
        request.set("messages", messages.isNull() ? request.get("messages") : messages);
        request.set("system", system);
        request.set("tools", tools);
        request.set("stop_sequences", stopSequences);
        request.set("tool_choice", toolChoice);
        answerOrRefuse(request.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Property
    void textPiecesJoinBackToTheText(@ForAll String text, @ForAll @IntRange(min = 1, max = 7) int words) {
        assertThat(String.join("", DeltaChunker.words(text, words))).isEqualTo(text);
        assertThat(String.join("", DeltaChunker.json(text))).isEqualTo(text);
    }

    @Property
    void truncationKeepsAPrefixWithinTheTokenBudget(@ForAll String text, @ForAll @IntRange(max = 500) int tokens) {
        String cut = TokenCounter.truncate(text, tokens);

        assertThat(text).startsWith(cut);
        assertThat(TokenCounter.of(cut)).isEqualTo(Math.min(tokens, TokenCounter.of(text)));
    }

    @Property(tries = 300)
    void aRequestedLengthIsMetExactly(@ForAll String prompt, @ForAll @IntRange(min = 1, max = 3000) int length) {
        String answer = AnswerText.answer(AnswerText.lead(prompt), AnswerText.seed(prompt), length);

        assertThat(TokenCounter.of(answer)).isEqualTo(length);
    }

    private static void answerOrRefuse(byte[] body) {
        try {
            SimulatedRequest request = RequestParser.parse(body, false);
            Prompt prompt = Prompt.of(request);
            PromptMarkers markers = PromptMarkers.in(request.promptTurn().text(), Duration.ZERO);
            Reply reply = ReplyComposer.compose(request, markers);
            assertThat(prompt.totalTokens()).isPositive();
            assertThat(reply.outputTokens()).isLessThanOrEqualTo(request.maxTokens());
            assertThat(WireFormat.message("msg_1", request.model(), reply, true, new InputUsage(1, 0, 0, 0), 1))
                    .isNotNull();
        } catch (ApiError refused) {
            assertThat(refused.status()).isIn(400, 404);
            assertThat(refused.getMessage()).isNotBlank();
        }
    }

    @Provide
    Arbitrary<String> promptish() {
        Arbitrary<String> fragments = Arbitraries.of(
                "[[sim:",
                "]]",
                "tool_use",
                "overloaded",
                "slow",
                "length",
                "status",
                "=",
                "{",
                "}",
                "\"a\":1",
                " ",
                "529",
                "-1",
                "99999999999",
                "ms",
                "x");
        return Arbitraries.oneOf(
                fragments.list().ofMaxSize(12).map(parts -> String.join("", parts)), Arbitraries.strings());
    }

    @Provide
    Arbitrary<JsonNode> anyJson() {
        return Arbitraries.lazyOf(
                () -> Arbitraries.just(JSON.nullNode()),
                () -> Arbitraries.strings().ofMaxLength(20).map(JSON::textNode),
                () -> Arbitraries.integers().map(JSON::numberNode),
                () -> Arbitraries.doubles().map(JSON::numberNode),
                () -> Arbitraries.of(true, false).map(JSON::booleanNode),
                () -> Arbitraries.of(
                                "user",
                                "assistant",
                                "text",
                                "tool_use",
                                "tool_result",
                                "ephemeral",
                                "tool",
                                "any",
                                "1h")
                        .map(JSON::textNode),
                () -> anyJson().list().ofMaxSize(3).map(SimulatorInputProperties::array),
                () -> Arbitraries.of("role", "content", "type", "text", "name", "input_schema", "cache_control", "ttl")
                        .list()
                        .ofMaxSize(3)
                        .flatMap(keys -> anyJson().list().ofSize(keys.size()).map(values -> object(keys, values))));
    }

    private static JsonNode array(List<JsonNode> values) {
        return JSON.arrayNode().addAll(values);
    }

    private static JsonNode object(List<String> keys, List<JsonNode> values) {
        ObjectNode object = JSON.objectNode();
        for (int i = 0; i < keys.size(); i++) {
            object.set(keys.get(i), values.get(i));
        }
        return object;
    }
}
