package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.NewConversationEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One INFO line per turn, when its end has been appended: outcome, error type, duration (when this
 * consumer saw it start) and tokens. Ids come from the log context; the text never goes into the line.
 * Nothing is logged per streamed event.
 */
final class TurnLog {

    private static final Logger log = LoggerFactory.getLogger(TurnLog.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Turns this consumer saw start; bounded, since a worker may never end one. */
    private static final int MAX_OPEN = 64;

    private final Clock clock;
    private final Map<String, Instant> started = new LinkedHashMap<>();

    TurnLog(Clock clock) {
        this.clock = clock;
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
        log.atInfo()
                .setMessage("Turn {} {}")
                .addArgument(turnId)
                .addArgument(event.type().equals("turn.completed") ? "completed" : "failed")
                .addKeyValue("turnId", turnId)
                .addKeyValue("messageId", text(data, "messageId"))
                .addKeyValue("outcome", event.type().equals("turn.completed") ? "completed" : "failed")
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
