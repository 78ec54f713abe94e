package app.talkide.controlplane.local.referenceworker;

import app.talkide.controlplane.workercontract.SseEventReader;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs one turn the way the Agent SDK does: send the transcript to the model through the local gateway
 * proxy, stream the answer as {@code text.delta} events, run the tools the model asks for, and repeat
 * until the model stops. Ends with {@code turn.completed} (stop reason and summed usage) or
 * {@code turn.failed} ({@code budget_exceeded}, {@code interrupted}, {@code upstream_error}).
 */
final class TurnRunner {

    private static final int MAX_MODEL_CALLS = 8;
    private static final String SYSTEM_PROMPT =
            "You are Mara, an AI coding agent working in the user's TalkIDE workspace. Answer concisely.";

    private final HttpClient http;
    private final GatewayProxyServer proxy;
    private final CurrentTimeTool tool;
    private final String model;
    private final int maxTokens;

    TurnRunner(HttpClient http, GatewayProxyServer proxy, CurrentTimeTool tool, String model, int maxTokens) {
        this.http = http;
        this.proxy = proxy;
        this.tool = tool;
        this.model = model;
        this.maxTokens = maxTokens;
    }

    void run(Session session, RunningTurn turn, String text) {
        ModelReplyReader.Usage usage = new ModelReplyReader.Usage();
        try {
            session.appendTranscript(
                    message("user", HttpExchanges.JSON.getNodeFactory().stringNode(text)));
            String stopReason = null;
            for (int call = 0; call < MAX_MODEL_CALLS && stopReason == null; call++) {
                ModelReplyReader.ModelReply reply = callModel(session, turn, usage);
                session.appendTranscript(message("assistant", reply.content));
                if (reply.toolUses.isEmpty() || !"tool_use".equals(reply.stopReason)) {
                    stopReason = reply.stopReason;
                } else {
                    session.appendTranscript(message("user", runTools(session, turn, reply.toolUses)));
                }
            }
            ObjectNode completed = turnData(turn).put("stopReason", stopReason == null ? "max_turns" : stopReason);
            completed.set("usage", usage.toJson());
            session.finishTurn(turn, "turn.completed", completed);
        } catch (TurnFailure failure) {
            fail(session, turn, failure.type, failure.getMessage());
        } catch (IOException | RuntimeException e) {
            if (turn.isInterrupted()) {
                fail(session, turn, TurnFailure.INTERRUPTED, "Interrupted by the user.");
            } else {
                fail(
                        session,
                        turn,
                        TurnFailure.UPSTREAM_ERROR,
                        "The model call failed: " + e.getClass().getSimpleName());
            }
        } catch (InterruptedException e) {
            fail(session, turn, TurnFailure.INTERRUPTED, "Interrupted by the user.");
        }
    }

    private void fail(Session session, RunningTurn turn, String type, String message) {
        if (turn.isAbandoned()) {
            session.turnEnded(turn); // the worker is going away: a restart reports this turn as failed
            return;
        }
        String effectiveType = turn.isInterrupted() ? TurnFailure.INTERRUPTED : type;
        ObjectNode failed = turnData(turn);
        failed.set(
                "error",
                HttpExchanges.JSON.createObjectNode().put("type", effectiveType).put("message", message));
        session.finishTurn(turn, "turn.failed", failed);
    }

    private ModelReplyReader.ModelReply callModel(Session session, RunningTurn turn, ModelReplyReader.Usage usage)
            throws IOException, InterruptedException, TurnFailure {
        ObjectNode body = HttpExchanges.JSON
                .createObjectNode()
                .put("model", model)
                .put("max_tokens", maxTokens)
                .put("stream", true)
                .put("system", SYSTEM_PROMPT);
        body.set("messages", HttpExchanges.JSON.valueToTree(session.transcript()));
        body.set("tools", tool.definitions());
        HttpRequest.Builder builder = HttpRequest.newBuilder(
                        java.net.URI.create(proxy.baseUrlFor(session.id()) + "/v1/messages?beta=true"))
                .header("Content-Type", "application/json")
                .header("anthropic-version", "2023-06-01")
                // Inert: the local proxy replaces it with a freshly minted WorkerToken.
                .header("Authorization", "Bearer talkide-local-proxy")
                .POST(HttpRequest.BodyPublishers.ofByteArray(HttpExchanges.JSON.writeValueAsBytes(body)));
        if (turn.traceparent() != null) {
            // The local proxy passes it on to the mint and the gateway: the turn's calls join its trace.
            builder.header(Traceparent.HEADER, turn.traceparent());
        }
        HttpRequest request = builder.build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            turn.reading(in);
            if (response.statusCode() != 200) {
                throw failureOf(response, in);
            }
            return ModelReplyReader.read(session, turn, new SseEventReader(in), usage);
        } finally {
            turn.reading(null);
        }
    }

    private static TurnFailure failureOf(HttpResponse<InputStream> response, InputStream in) throws IOException {
        String denial = response.headers().firstValue("x-talkide-denial-reason").orElse("");
        String message = errorMessage(new String(in.readNBytes(64 * 1024), java.nio.charset.StandardCharsets.UTF_8))
                .orElse("The gateway answered " + response.statusCode() + ".");
        if (response.statusCode() == 429 && denial.equals("spending_limit")) {
            return new TurnFailure(TurnFailure.BUDGET_EXCEEDED, message);
        }
        return new TurnFailure(
                TurnFailure.UPSTREAM_ERROR, "The gateway answered " + response.statusCode() + ": " + message);
    }

    private static Optional<String> errorMessage(String body) {
        try {
            return Optional.ofNullable(HttpExchanges.JSON
                    .readTree(body)
                    .path("error")
                    .path("message")
                    .asString(null));
        } catch (RuntimeException notJson) {
            return Optional.empty();
        }
    }

    private ArrayNode runTools(Session session, RunningTurn turn, List<ObjectNode> toolUses) {
        ArrayNode results = HttpExchanges.JSON.createArrayNode();
        for (ObjectNode toolUse : toolUses) {
            String id = toolUse.path("id").asString("");
            String name = toolUse.path("name").asString("");
            ObjectNode started = turnData(turn).put("toolUseId", id).put("name", name);
            started.set("input", toolUse.path("input"));
            session.emit("tool.started", started);
            CurrentTimeTool.Result result = tool.run(name, toolUse.path("input"));
            session.emit(
                    "tool.completed",
                    turnData(turn)
                            .put("toolUseId", id)
                            .put("name", name)
                            .put("isError", result.isError())
                            .put("output", result.output()));
            results.add(HttpExchanges.JSON
                    .createObjectNode()
                    .put("type", "tool_result")
                    .put("tool_use_id", id)
                    .put("content", result.output())
                    .put("is_error", result.isError()));
        }
        return results;
    }

    static ObjectNode turnData(RunningTurn turn) {
        return HttpExchanges.JSON
                .createObjectNode()
                .put("turnId", turn.id().toString())
                .put("messageId", turn.messageId());
    }

    private static ObjectNode message(String role, JsonNode content) {
        ObjectNode message = HttpExchanges.JSON.createObjectNode().put("role", role);
        message.set("content", content);
        return message;
    }
}
