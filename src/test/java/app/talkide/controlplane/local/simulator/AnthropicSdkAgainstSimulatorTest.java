package app.talkide.controlplane.local.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.OverloadedException;
import com.anthropic.errors.RateLimitException;
import com.anthropic.errors.SseException;
import com.anthropic.errors.UnauthorizedException;
import com.anthropic.helpers.BetaMessageAccumulator;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.beta.messages.BetaRawMessageStreamEvent;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolUseBlock;
import com.anthropic.models.messages.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The official Anthropic Java SDK, strict response validation on, used against the simulator exactly as
 * against api.anthropic.com: if the SDK accepts the simulator, so will the engines in the workers.
 */
class AnthropicSdkAgainstSimulatorTest {

    static final SimulatorFixture simulator = new SimulatorFixture(
            SimulatorFixture.properties(Duration.ofMillis(20), Duration.ofMillis(2), Duration.ofMillis(20)));
    static final AnthropicClient client = client(simulator.server.apiKey());

    @AfterAll
    static void stop() {
        client.close();
        simulator.close();
    }

    @Test
    void sdkStreamsAndAccumulatesTheAnswerWithItsUsage() {
        MessageAccumulator accumulator = MessageAccumulator.create();
        try (StreamResponse<RawMessageStreamEvent> stream =
                client.messages().createStreaming(params("Stream to the SDK"))) {
            stream.stream().forEach(event -> accumulator.accumulate(event.validate()));
        }
        Message message = accumulator.message();

        assertThat(message.content()).hasSize(1);
        String text = message.content().getFirst().asText().text();
        assertThat(text).startsWith("Simulated reply to “Stream to the SDK”.");
        assertThat(message.stopReason()).hasValue(StopReason.END_TURN);
        Usage usage = message.usage();
        assertThat(usage.inputTokens()).isEqualTo(3 + 3 + TokenCounter.of("Stream to the SDK"));
        assertThat(usage.outputTokens()).isEqualTo(TokenCounter.of(text));
        assertThat(usage.cacheCreationInputTokens()).hasValue(0L);
        assertThat(usage.cacheReadInputTokens()).hasValue(0L);
    }

    @Test
    void sdkReadsTheNonStreamingAnswerAndCountsTokensTheSameWay() {
        Message message = client.messages().create(params("Not streamed")).validate();
        long counted = client.messages()
                .countTokens(MessageCountTokensParams.builder()
                        .model(SimulatorFixture.MODEL)
                        .addUserMessage("Not streamed")
                        .build())
                .inputTokens();

        assertThat(message.content().getFirst().asText().text()).startsWith("Simulated reply to “Not streamed”.");
        assertThat(message.usage().inputTokens()).isEqualTo(counted).isEqualTo(3 + 3 + 3);
        assertThat(message.id()).startsWith("msg_01");
    }

    @Test
    void sdkAssemblesAStreamedToolCall() {
        Tool weather = Tool.builder()
                .name("get_weather")
                .inputSchema(Tool.InputSchema.builder()
                        .properties(JsonValue.from(Map.of("city", Map.of("type", "string"))))
                        .required(List.of("city"))
                        .build())
                .build();
        MessageAccumulator accumulator = MessageAccumulator.create();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages()
                .createStreaming(params("Weather in Brno [[sim:tool_use]]").toBuilder()
                        .addTool(weather)
                        .build())) {
            stream.stream().forEach(event -> accumulator.accumulate(event.validate()));
        }
        Message message = accumulator.message();

        assertThat(message.stopReason()).hasValue(StopReason.TOOL_USE);
        ToolUseBlock call = message.content().get(1).asToolUse();
        assertThat(call.name()).isEqualTo("get_weather");
        assertThat(call._input().convert(Map.class)).isEqualTo(Map.of("city", "Weather in Brno"));
    }

    @Test
    void sdkStreamsFromTheBetaEndpoint() {
        BetaMessageAccumulator accumulator = BetaMessageAccumulator.create();
        try (StreamResponse<BetaRawMessageStreamEvent> stream = client.beta()
                .messages()
                .createStreaming(com.anthropic.models.beta.messages.MessageCreateParams.builder()
                        .model(SimulatorFixture.MODEL)
                        .maxTokens(1024)
                        .addBeta("interleaved-thinking-2025-05-14")
                        .addUserMessage("Beta stream")
                        .build())) {
            stream.stream().forEach(event -> accumulator.accumulate(event.validate()));
        }

        assertThat(accumulator.message().content().getFirst().asText().text())
                .startsWith("Simulated reply to “Beta stream”.");
        assertThat(accumulator.message().usage().outputTokens()).isPositive();
    }

    @Test
    void sdkSurfacesTheMidStreamOverloadAsAnErrorEvent() {
        try (StreamResponse<RawMessageStreamEvent> stream =
                client.messages().createStreaming(params("Fail [[sim:overloaded]]"))) {
            assertThatThrownBy(() -> stream.stream().forEach(RawMessageStreamEvent::validate))
                    .isInstanceOfSatisfying(
                            SseException.class,
                            e -> assertThat(e.body().toString()).contains("overloaded_error"));
        }
    }

    @Test
    void sdkMapsErrorStatusesToItsExceptions() {
        assertThatThrownBy(() -> client.messages().create(params("Fail [[sim:overloaded]]")))
                .isInstanceOf(OverloadedException.class);
        assertThatThrownBy(() -> client.messages().create(params("[[sim:status=429]]")))
                .isInstanceOf(RateLimitException.class);
        AnthropicClient wrongKey = client("sk-ant-api03-wrong");
        try {
            assertThatThrownBy(() -> wrongKey.messages().create(params("hi")))
                    .isInstanceOf(UnauthorizedException.class)
                    .hasMessageContaining("invalid bearer token");
        } finally {
            wrongKey.close();
        }
    }

    private static MessageCreateParams params(String prompt) {
        return MessageCreateParams.builder()
                .model(SimulatorFixture.MODEL)
                .maxTokens(1024)
                .addUserMessage(prompt)
                .build();
    }

    private static AnthropicClient client(String apiKey) {
        return AnthropicOkHttpClient.builder()
                .baseUrl(simulator.server.baseUrl().toString())
                .apiKey(apiKey)
                .maxRetries(0)
                .responseValidation(true)
                .build();
    }
}
