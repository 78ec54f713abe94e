package app.talkide.controlplane.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Decides what the simulated model says to a request: a text answer, or a short text and a tool call;
 * after a tool result, a sentence about that result. Then applies {@code stop_sequences} and
 * {@code max_tokens} as the real API does, so {@code stop_reason} and usage are honest.
 */
final class ReplyComposer {

    private ReplyComposer() {}

    static Reply compose(MessagesRequest request, Markers markers) {
        MessagesRequest.Turn prompt = request.lastUserTurn();
        String promptText = prompt.lastText();
        List<JsonNode> toolResults = prompt.blocksOfType("tool_result");
        String lead =
                toolResults.isEmpty() ? AnswerText.lead(promptText) : aboutToolResult(request, toolResults.getFirst());
        String seed = AnswerText.seed(promptText) + (toolResults.isEmpty() ? "" : toolResults.getFirst());

        ToolChoice choice = toolChoice(request, markers);
        Reply reply;
        if (choice.tool() != null) {
            String name = choice.tool().path("name").asString();
            JsonNode input = choice.input() != null
                    ? choice.input()
                    : ToolInputs.derive(choice.tool(), AnswerText.preview(promptText));
            reply = new Reply(
                    List.of(
                            new Reply.Text(lead + " Calling the " + name + " tool."),
                            new Reply.ToolUse(Ids.toolUse(), name, input)),
                    "tool_use",
                    null);
        } else {
            String text = choice.refusal() != null
                    ? lead + " " + choice.refusal()
                    : AnswerText.answer(lead, seed, markers.length());
            reply = new Reply(List.of(new Reply.Text(text)), "end_turn", null);
        }
        return withoutEmptyText(limited(reply, request));
    }

    private static String aboutToolResult(MessagesRequest request, JsonNode result) {
        String name =
                request.toolNameOf(result.path("tool_use_id").asString("")).orElse("tool");
        JsonNode content = result.path("content");
        StringBuilder text = new StringBuilder();
        if (content.isString()) {
            text.append(content.stringValue());
        } else {
            content.forEach(part -> text.append(part.path("text").asString("")).append(' '));
        }
        String preview = AnswerText.preview(text.toString());
        return result.path("is_error").asBoolean(false)
                ? "The " + name + " tool failed: “" + preview + "”."
                : "The " + name + " tool returned “" + preview + "”.";
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

    private static ToolChoice toolChoice(MessagesRequest request, Markers markers) {
        JsonNode forced = request.toolChoice();
        String forcedType = forced == null ? "auto" : forced.path("type").asString("auto");
        if (forcedType.equals("none")) {
            return new ToolChoice(null, null, null);
        }
        Markers.ToolCall asked = markers.toolCall();
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
        if (request.tools().isEmpty()) {
            return new ToolChoice(null, null, "A tool call was asked for, but the request offers no tools.");
        }
        return new ToolChoice(request.tools().getFirst(), input, null);
    }

    private static Reply limited(Reply reply, MessagesRequest request) {
        Reply.Text text = (Reply.Text) reply.blocks().getFirst();
        for (String stop : request.stopSequences()) {
            int at = text.text().indexOf(stop);
            if (at >= 0) {
                // The earliest occurrence wins: later ones were never generated.
                String cut = text.text().substring(0, at);
                reply = new Reply(List.of(new Reply.Text(cut)), "stop_sequence", stop);
                text = (Reply.Text) reply.blocks().getFirst();
            }
        }
        int budget = request.maxTokens();
        if (text.outputTokens() > budget) {
            return new Reply(List.of(new Reply.Text(Tokens.truncate(text.text(), budget))), "max_tokens", null);
        }
        if (reply.outputTokens() > budget) {
            // The tool call would not fit: the model is cut off after its text.
            return new Reply(List.of(text), "max_tokens", null);
        }
        return reply;
    }

    private static Reply withoutEmptyText(Reply reply) {
        List<Reply.Block> blocks = new ArrayList<>(reply.blocks());
        blocks.removeIf(block -> block instanceof Reply.Text text && text.text().isEmpty());
        return new Reply(List.copyOf(blocks), reply.stopReason(), reply.stopSequence());
    }
}
