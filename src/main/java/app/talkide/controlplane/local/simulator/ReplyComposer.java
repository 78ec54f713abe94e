package app.talkide.controlplane.local.simulator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Decides what the simulated model says to a request: a text answer, or a short text and a tool call;
 * after tool results, sentences quoting them. The tool calls the prompt's markers ask for run as a
 * chain: each model call makes the next one not made yet in this exchange (counted from the tool calls
 * since the prompt), and once all are made the answer quotes every result. With thinking on, a thinking
 * block comes first. Then applies {@code stop_sequences} and {@code max_tokens} as the real API does, so
 * {@code stop_reason} and usage are honest.
 */
final class ReplyComposer {

    private ReplyComposer() {}

    static Reply compose(SimulatedRequest request, PromptMarkers markers) {
        String promptText = request.promptTurn().lastText();
        List<JsonNode> toolResults = request.sincePrompt("tool_result");
        String lead = toolResults.isEmpty() ? AnswerText.lead(promptText) : aboutToolResults(request, toolResults);
        if (markers.recall()) {
            lead += " " + recall(request);
        }
        String seed = AnswerText.seed(promptText) + toolResults;

        List<Reply.Block> blocks = new ArrayList<>();
        if (request.thinking().on()) {
            blocks.add(thinking(promptText, toolResults.size()));
        }
        int callsMade = request.sincePrompt("tool_use").size();
        ToolChoice choice = toolChoice(request, markers, callsMade);
        String stopReason;
        if (choice.tool() != null) {
            String name = choice.tool().path("name").asString();
            JsonNode input = choice.input() != null
                    ? choice.input()
                    : ToolInputs.derive(choice.tool(), AnswerText.preview(promptText));
            blocks.add(new Reply.Text(lead + " Calling the " + name + " tool."));
            blocks.add(new Reply.ToolUse(ApiIds.toolUse(), name, input));
            stopReason = "tool_use";
        } else {
            String text = choice.refusal() != null
                    ? lead + " " + choice.refusal()
                    : AnswerText.answer(lead, seed, markers.length());
            blocks.add(new Reply.Text(text));
            stopReason = "end_turn";
        }
        return withoutEmptyText(limited(new Reply(blocks, stopReason, null), request));
    }

    private static Reply.Thinking thinking(String prompt, int results) {
        String text = results == 0
                ? "The message reads “" + AnswerText.preview(prompt) + "”. The simulator answers it from a hash of"
                        + " its words, so there is nothing to reason about."
                : "There are " + results + " tool results to report. The simulator quotes them.";
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return new Reply.Thinking(text, "Sim" + Base64.getEncoder().encodeToString(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JVM has SHA-256", e);
        }
    }

    /**
     * The prompts before this one, as the request carries them: what an engine remembers of the conversation.
     * A resumed session sends its earlier turns again; a session started afresh sends none.
     */
    private static String recall(SimulatedRequest request) {
        List<String> earlier = request.messages().subList(0, Math.max(0, request.promptIndex())).stream()
                .filter(turn ->
                        turn.isUser() && turn.blocksOfType("tool_result").isEmpty())
                .map(turn -> AnswerText.preview(turn.lastText()))
                .filter(text -> !text.isEmpty())
                .toList();
        return earlier.isEmpty()
                ? "Earlier prompts: none."
                : "Earlier prompts: " + earlier.size() + ", the first “" + earlier.getFirst() + "”.";
    }

    /** One sentence per tool result since the prompt, in order: what the model "learned" from its tools. */
    private static String aboutToolResults(SimulatedRequest request, List<JsonNode> results) {
        StringBuilder about = new StringBuilder();
        for (JsonNode result : results) {
            String name =
                    request.toolNameOf(result.path("tool_use_id").asString("")).orElse("tool");
            JsonNode content = result.path("content");
            StringBuilder text = new StringBuilder();
            if (content.isString()) {
                text.append(content.stringValue());
            } else {
                content.forEach(
                        part -> text.append(part.path("text").asString("")).append(' '));
            }
            String preview = AnswerText.preview(text.toString());
            about.append(about.isEmpty() ? "" : " ")
                    .append(
                            result.path("is_error").asBoolean(false)
                                    ? "The " + name + " tool failed: “" + preview + "”."
                                    : "The " + name + " tool returned “" + preview + "”.");
        }
        return about.toString();
    }

    /**
     * @param tool the tool to call, if any
     * @param input its input when the prompt gave one
     * @param refusal why a requested call cannot be made, said in the answer instead
     */
    private record ToolChoice(
            @Nullable JsonNode tool,
            @Nullable JsonNode input,
            @Nullable String refusal) {}

    private static ToolChoice toolChoice(SimulatedRequest request, PromptMarkers markers, int callsMade) {
        JsonNode forced = request.toolChoice();
        String forcedType = forced == null ? "auto" : forced.path("type").asString("auto");
        if (forcedType.equals("none")) {
            return new ToolChoice(null, null, null);
        }
        // The next call of the chain, if the exchange has not made them all yet.
        PromptMarkers.ToolCall asked =
                callsMade < markers.toolCalls().size() ? markers.toolCalls().get(callsMade) : null;
        String name =
                forcedType.equals("tool") ? forced.path("name").asString("") : asked != null ? asked.name() : null;
        boolean wanted = asked != null || forcedType.equals("tool") || forcedType.equals("any");
        if (!wanted) {
            return new ToolChoice(null, null, null);
        }
        JsonNode input = asked != null ? asked.input() : null;
        if (name != null) {
            Optional<JsonNode> tool = request.tool(name);
            return tool.map(found -> new ToolChoice(found, input, null))
                    .orElseGet(() -> new ToolChoice(
                            null,
                            null,
                            "A call to the tool “" + name + "” was asked for, but the request does not offer it."));
        }
        Optional<JsonNode> first = request.tools().stream()
                .filter(tool -> tool.path("name").isString())
                .findFirst();
        return first.map(tool -> new ToolChoice(tool, input, null))
                .orElseGet(() ->
                        new ToolChoice(null, null, "A tool call was asked for, but the request offers no tools."));
    }

    /**
     * Cuts the reply at the first stop sequence in its text, then at {@code max_tokens}: thinking and
     * text are truncated, a tool call that does not fit whole is dropped (the model was cut off before it).
     */
    private static Reply limited(Reply reply, SimulatedRequest request) {
        List<Reply.Block> blocks = new ArrayList<>();
        int budget = request.maxTokens();
        for (Reply.Block block : reply.blocks()) {
            String stop = null;
            if (block instanceof Reply.Text text) {
                int earliest = Integer.MAX_VALUE;
                for (String candidate : request.stopSequences()) {
                    int at = text.text().indexOf(candidate);
                    if (at >= 0 && at < earliest) {
                        earliest = at;
                        stop = candidate;
                    }
                }
                if (stop != null) {
                    block = new Reply.Text(text.text().substring(0, earliest));
                }
            }
            if (block.outputTokens() > budget) {
                switch (block) {
                    case Reply.Text text -> blocks.add(new Reply.Text(TokenCounter.truncate(text.text(), budget)));
                    case Reply.Thinking thinking ->
                        blocks.add(new Reply.Thinking(
                                TokenCounter.truncate(thinking.thinking(), budget), thinking.signature()));
                    case Reply.ToolUse ignored -> {}
                }
                return new Reply(List.copyOf(blocks), "max_tokens", null);
            }
            budget -= block.outputTokens();
            blocks.add(block);
            if (stop != null) {
                return new Reply(List.copyOf(blocks), "stop_sequence", stop);
            }
        }
        return new Reply(List.copyOf(blocks), reply.stopReason(), reply.stopSequence());
    }

    private static Reply withoutEmptyText(Reply reply) {
        List<Reply.Block> blocks = new ArrayList<>(reply.blocks());
        blocks.removeIf(block -> block instanceof Reply.Text text && text.text().isEmpty());
        return new Reply(List.copyOf(blocks), reply.stopReason(), reply.stopSequence());
    }
}
