package app.talkide.controlplane.local.simulator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Instructions to the simulator written into the prompt (the last user message), so a person in the
 * console or a test can ask for a tool call, a failure or a slow stream. Documented in
 * {@code docs/simulator.md}:
 *
 * <ul>
 *   <li>{@code [[sim:tool_use]]}, {@code [[sim:tool_use=NAME]]}, {@code [[sim:tool_use=NAME {json}]]}: call a
 *       tool (the named one, else the first offered), with the given input or one derived from its schema;
 *       several run as a chain, one call per model call, in the order written;
 *   <li>{@code [[sim:overloaded]]}: fail mid-stream with an {@code overloaded_error} event (529 when not
 *       streaming);
 *   <li>{@code [[sim:slow]]}, {@code [[sim:slow=MILLIS]]}: pause that long between deltas;
 *   <li>{@code [[sim:length=N]]}: answer with about N output tokens;
 *   <li>{@code [[sim:status=CODE]]}: refuse the request with that HTTP status in Anthropic's error shape;
 *   <li>{@code [[sim:recall]]}: say how many prompts came before in the request and quote the first, so a test
 *       sees whether an engine sent the earlier turns (a resumed session) or started afresh.
 * </ul>
 *
 * An unknown or malformed marker is a 400, so a typo is noticed instead of silently ignored.
 *
 * @param toolCalls the tool calls asked for, in order
 * @param slowDelay the pause between deltas, when a slow stream was asked for
 * @param recall whether the answer reports the earlier prompts the request carries
 */
record PromptMarkers(
        List<ToolCall> toolCalls,
        boolean overloaded,
        @Nullable Duration slowDelay,
        @Nullable Integer length,
        @Nullable Integer status,
        boolean recall) {

    static final PromptMarkers NONE = new PromptMarkers(List.of(), false, null, null, null, false);

    // The JSON part is bounded so a hostile prompt full of unclosed markers cannot make matching quadratic.
    private static final Pattern MARKER = Pattern.compile(
            "\\[\\[sim:([a-z_]+)(?:=([^\\]\\s]{0,64}))?(?:\\s+(\\{.{0,4096}?\\}))?\\]\\]", Pattern.DOTALL);
    private static final Duration MAX_SLOW_DELAY = Duration.ofSeconds(60);
    private static final int MAX_LENGTH = 200_000;

    /**
     * @param name the tool to call, or {@code null} for the first one the request offers
     * @param input the input to call it with, or {@code null} to derive one from the tool's schema
     */
    record ToolCall(@Nullable String name, @Nullable JsonNode input) {}

    static PromptMarkers in(String prompt, Duration defaultSlowDelay) {
        List<ToolCall> toolCalls = new ArrayList<>();
        boolean overloaded = false;
        Duration slowDelay = null;
        Integer length = null;
        Integer status = null;
        boolean recall = false;
        Matcher marker = MARKER.matcher(prompt);
        while (marker.find()) {
            String name = marker.group(1);
            String value = marker.group(2);
            String json = marker.group(3);
            if (json != null && !name.equals("tool_use")) {
                throw unknown(marker.group());
            }
            switch (name) {
                case "tool_use" ->
                    toolCalls.add(new ToolCall(emptyToNull(value), json == null ? null : toolInput(json)));
                case "overloaded" -> {
                    noValue(marker.group(), value);
                    overloaded = true;
                }
                case "slow" ->
                    slowDelay = value == null
                            ? defaultSlowDelay
                            : Duration.ofMillis(number(
                                    marker.group(), value.replaceFirst("ms$", ""), 0, (int) MAX_SLOW_DELAY.toMillis()));
                case "length" -> length = number(marker.group(), value, 1, MAX_LENGTH);
                case "status" -> {
                    int code = number(marker.group(), value, 400, 599);
                    if (!ApiError.knownStatus(code)) {
                        throw ApiError.invalidRequest("Simulator marker " + marker.group()
                                + ": the status must be one the Anthropic API answers with ("
                                + ApiError.knownStatuses() + ")");
                    }
                    status = code;
                }
                case "recall" -> {
                    noValue(marker.group(), value);
                    recall = true;
                }
                default -> throw unknown(marker.group());
            }
        }
        String rest = strip(prompt);
        int leftover = rest.indexOf("[[sim:");
        if (leftover >= 0) {
            throw unknown(rest.substring(leftover, Math.min(rest.length(), leftover + 40)));
        }
        return new PromptMarkers(List.copyOf(toolCalls), overloaded, slowDelay, length, status, recall);
    }

    /** The prompt with every marker taken out, as the simulated model "reads" it. */
    static String strip(String prompt) {
        return MARKER.matcher(prompt).replaceAll("");
    }

    private static JsonNode toolInput(String json) {
        try {
            JsonNode input = RequestParser.JSON.readTree(json);
            if (input != null && input.isObject()) {
                return input;
            }
        } catch (JacksonException e) {
            // falls through to the error below
        }
        throw ApiError.invalidRequest("Simulator marker [[sim:tool_use]]: the tool input must be a JSON object");
    }

    private static int number(String marker, @Nullable String value, int min, int max) {
        try {
            int number = Integer.parseInt(value == null ? "" : value);
            if (number >= min && number <= max) {
                return number;
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        throw ApiError.invalidRequest(
                "Simulator marker " + marker + ": expected a whole number from " + min + " to " + max);
    }

    private static void noValue(String marker, @Nullable String value) {
        if (value != null) {
            throw unknown(marker);
        }
    }

    private static @Nullable String emptyToNull(@Nullable String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    private static ApiError unknown(String marker) {
        return ApiError.invalidRequest("Unknown simulator marker " + marker
                + " (known: [[sim:tool_use]], [[sim:overloaded]], [[sim:slow]], [[sim:length=N]],"
                + " [[sim:status=CODE]], [[sim:recall]]; see docs/simulator.md)");
    }
}
