package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.observability.Traces;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One INFO line per turn, when its end has been appended: outcome, error type, duration (when this
 * consumer saw it start) and tokens. Ids come from the log context; the text never goes into the line.
 * Nothing is logged per streamed event.
 *
 * <p>The line is written inside a short span of the trace of the message that started the turn (its
 * {@code traceparent} is stored with the message in the outbox), so its {@code traceId} finds the browser
 * call, the delivery and the worker's gateway calls of that turn; the stream this runs on belongs to no
 * request. One indexed read per turn, none per event.
 */
final class TurnLog {

    private static final Logger log = LoggerFactory.getLogger(TurnLog.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Turns this consumer saw start; bounded, since a worker may never end one. */
    private static final int MAX_OPEN = 64;

    private final Clock clock;
    private final MessageOutbox messages;
    private final Traces traces;
    private final Map<String, Instant> started = new LinkedHashMap<>();

    TurnLog(Clock clock, MessageOutbox messages, Traces traces) {
        this.clock = clock;
        this.messages = messages;
        this.traces = traces;
    }

    /** Follows the turns in a batch that has just been appended to the event log. */
    void appended(List<NewConversationEvent> batch) {
        for (NewConversationEvent event : batch) {
            switch (event.type()) {
                case "turn.started" -> started(event);
                case "turn.completed", "turn.failed" -> ended(event);
                default -> {}
            }
        }
    }

    private void started(NewConversationEvent event) {
        if (started.size() >= MAX_OPEN) {
            started.remove(started.keySet().iterator().next());
        }
        started.put(text(data(event), "turnId"), clock.instant());
    }

    private void ended(NewConversationEvent event) {
        JsonNode data = data(event);
        String turnId = text(data, "turnId");
        Instant since = started.remove(turnId);
        JsonNode usage = data.path("usage");
        String messageId = text(data, "messageId");
        String outcome = event.type().equals("turn.completed") ? "completed" : "failed";
        try (Traces.SpanScope span = traces.continueTrace("turn " + outcome, traceParentOf(messageId))) {
            span.tag("talkide.turn.id", turnId).tag("talkide.message.id", messageId);
            log(outcome, data, turnId, since, usage);
        }
    }

    private void log(String outcome, JsonNode data, String turnId, @Nullable Instant since, JsonNode usage) {
        log.atInfo()
                .setMessage("Turn {} {}")
                .addArgument(turnId)
                .addArgument(outcome)
                .addKeyValue("turnId", turnId)
                .addKeyValue("messageId", text(data, "messageId"))
                .addKeyValue("outcome", outcome)
                .addKeyValue("errorType", text(data.path("error"), "type"))
                .addKeyValue("stopReason", text(data, "stopReason"))
                .addKeyValue(
                        "durationMs",
                        since == null
                                ? null
                                : Duration.between(since, clock.instant()).toMillis())
                .addKeyValue("inputTokens", usage.path("inputTokens").asLong(0))
                .addKeyValue("outputTokens", usage.path("outputTokens").asLong(0))
                .log();
    }

    private @Nullable String traceParentOf(String messageId) {
        try {
            return messages.traceParentOf(UUID.fromString(messageId)).orElse(null);
        } catch (RuntimeException unknownOrUnreadable) {
            // Not a message id we issued, or the database is away: the line gets a trace of its own.
            return null;
        }
    }

    private static JsonNode data(NewConversationEvent event) {
        try {
            return JSON.readTree(event.data());
        } catch (RuntimeException unreadable) {
            return JSON.createObjectNode();
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isValueNode() ? value.asString() : "";
    }
}
