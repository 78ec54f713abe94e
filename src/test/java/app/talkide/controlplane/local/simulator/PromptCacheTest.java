package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.COUNT_TOKENS;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Prompt caching as usage reports it: a breakpoint writes its prefix once, later requests read it until
 * it expires, and the split always adds up to what {@code count_tokens} says the prompt costs.
 */
class PromptCacheTest {

    /** 8,000 characters: 2,000 tokens, above the 1,024-token minimum. */
    static final String LONG_SYSTEM =
            "You are Mara, a careful coding agent. ".repeat(220).substring(0, 8_000);

    final SimulatorFixture simulator = SimulatorFixture.unpaced();

    @AfterEach
    void stop() {
        simulator.close();
    }

    @Test
    void aCachedSystemPromptIsWrittenOnceThenRead() {
        ObjectNode request = withCachedSystem(request("first question"), null);
        int total = count(request);

        JsonNode first = usage(request);
        JsonNode second = usage(request);

        int prefix = 3 + 2_000;
        assertThat(first.path("cache_creation_input_tokens").asInt()).isEqualTo(prefix);
        assertThat(first.path("cache_creation")
                        .path("ephemeral_5m_input_tokens")
                        .asInt())
                .isEqualTo(prefix);
        assertThat(first.path("cache_read_input_tokens").asInt()).isZero();
        assertThat(first.path("input_tokens").asInt()).isEqualTo(total - prefix);
        assertThat(second.path("cache_creation_input_tokens").asInt()).isZero();
        assertThat(second.path("cache_read_input_tokens").asInt()).isEqualTo(prefix);
        assertThat(second.path("input_tokens").asInt()).isEqualTo(total - prefix);
    }

    @Test
    void aFiveMinuteEntryExpiresAndAnHourEntryDoesNot() {
        ObjectNode fiveMinutes = withCachedSystem(request("hi"), null);
        ObjectNode oneHour = withCachedSystem(request("hi").put("model", "claude-opus-4-5"), "1h");
        usage(fiveMinutes);
        JsonNode written = usage(oneHour);
        assertThat(written.path("cache_creation")
                        .path("ephemeral_1h_input_tokens")
                        .asInt())
                .isEqualTo(2_003);

        simulator.clock.advance(Duration.ofMinutes(6));

        assertThat(usage(fiveMinutes).path("cache_creation_input_tokens").asInt())
                .isEqualTo(2_003);
        assertThat(usage(oneHour).path("cache_read_input_tokens").asInt()).isEqualTo(2_003);
    }

    @Test
    void aReadRefreshesTheEntrysLifetime() {
        ObjectNode request = withCachedSystem(request("hi"), null);
        usage(request);
        simulator.clock.advance(Duration.ofMinutes(4));
        assertThat(usage(request).path("cache_read_input_tokens").asInt()).isPositive();

        simulator.clock.advance(Duration.ofMinutes(4));

        assertThat(usage(request).path("cache_read_input_tokens").asInt()).isPositive();
    }

    @Test
    void aGrowingConversationReadsTheOldPrefixAndWritesOnlyTheNewPart() {
        ObjectNode first = withCachedSystem(request("q1"), null);
        usage(first);
        ObjectNode second = first.deepCopy();
        ArrayNode messages = second.withArray("messages");
        messages.addObject().put("role", "assistant").put("content", "a1 ".repeat(400));
        ObjectNode next = messages.addObject().put("role", "user");
        next.putArray("content")
                .addObject()
                .put("type", "text")
                .put("text", "q2")
                .putObject("cache_control")
                .put("type", "ephemeral");

        JsonNode usage = usage(second);

        assertThat(usage.path("cache_read_input_tokens").asInt()).isEqualTo(2_003);
        assertThat(usage.path("cache_creation_input_tokens").asInt()).isEqualTo(count(second) - 2_003);
        assertThat(usage.path("input_tokens").asInt()).isZero();
    }

    @Test
    void aPrefixBelowTheMinimumIsNotCached() {
        ObjectNode request = request("hi");
        request.putArray("system")
                .addObject()
                .put("type", "text")
                .put("text", "short system prompt")
                .putObject("cache_control")
                .put("type", "ephemeral");

        JsonNode usage = usage(request);

        assertThat(usage.path("cache_creation_input_tokens").asInt()).isZero();
        assertThat(usage(request).path("cache_read_input_tokens").asInt()).isZero();
        assertThat(usage.path("input_tokens").asInt()).isEqualTo(count(request));
    }

    @Test
    void theCacheIsPerModel() {
        usage(withCachedSystem(request("hi"), null));

        JsonNode otherModel = usage(withCachedSystem(request("hi").put("model", "claude-haiku-4-5"), null));

        assertThat(otherModel.path("cache_read_input_tokens").asInt()).isZero();
        assertThat(otherModel.path("cache_creation_input_tokens").asInt()).isEqualTo(2_003);
    }

    private JsonNode usage(ObjectNode request) {
        JsonNode usage = simulator.post(MESSAGES, request).json().path("usage");
        assertThat(usage.path("input_tokens").asInt()
                        + usage.path("cache_creation_input_tokens").asInt()
                        + usage.path("cache_read_input_tokens").asInt())
                .as("the split adds up to the prompt's tokens")
                .isEqualTo(count(request));
        return usage;
    }

    private int count(ObjectNode request) {
        ObjectNode counting = request.deepCopy();
        counting.remove("max_tokens");
        return simulator
                .post(COUNT_TOKENS, counting)
                .json()
                .path("input_tokens")
                .asInt();
    }

    private static ObjectNode withCachedSystem(ObjectNode request, String ttl) {
        ObjectNode control = request.putArray("system")
                .addObject()
                .put("type", "text")
                .put("text", LONG_SYSTEM)
                .putObject("cache_control")
                .put("type", "ephemeral");
        if (ttl != null) {
            control.put("ttl", ttl);
        }
        return request;
    }
}
