package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.workercontract.SseEventReader.SseEvent;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns a worker stream event into a conversation event: same type, the worker's JSON re-serialized
 * compactly, the worker's event id as the de-duplication key. Events the contract does not define, or
 * that lack what the browser needs (docs/worker-events/*.schema.json), are dropped with a reason rather
 * than shown half-formed; an event without an id cannot be de-duplicated and is dropped too.
 */
final class WorkerEventMapper {

    /** Why an event was not appended; counted in {@code talkide.worker.events.dropped{reason}}. */
    enum Drop {
        UNKNOWN_TYPE,
        NO_ID,
        INVALID_DATA
    }

    /** Outcome of mapping one event. */
    record Mapped(Optional<NewConversationEvent> event, Optional<Drop> dropped) {}

    static final Set<String> TURN_ENDS = Set.of("turn.completed", "turn.failed");

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int MAX_ID = 200;

    /** Fields each worker event type must carry as strings (numbers and objects are checked below). */
    private static final Map<String, Set<String>> REQUIRED_TEXT = Map.of(
            "turn.started", Set.of("turnId", "messageId"),
            "text.delta", Set.of("turnId", "text"),
            "tool.started", Set.of("turnId", "toolUseId", "name"),
            "tool.completed", Set.of("turnId", "toolUseId", "name"),
            "turn.completed", Set.of("turnId", "stopReason"),
            "turn.failed", Set.of("turnId"),
            "session.status", Set.of("status"));

    Mapped map(SseEvent event) {
        Set<String> required = REQUIRED_TEXT.get(event.type());
        if (required == null) {
            return dropped(Drop.UNKNOWN_TYPE);
        }
        if (event.id() == null || event.id().isEmpty() || event.id().length() > MAX_ID) {
            return dropped(Drop.NO_ID);
        }
        JsonNode data;
        try {
            data = JSON.readTree(event.data());
        } catch (JacksonException e) {
            return dropped(Drop.INVALID_DATA);
        }
        if (!data.isObject()
                || !required.stream().allMatch(field -> data.path(field).isString())) {
            return dropped(Drop.INVALID_DATA);
        }
        if (event.type().equals("turn.failed")
                && !data.path("error").path("type").isString()) {
            return dropped(Drop.INVALID_DATA);
        }
        if (event.type().equals("tool.completed") && !data.path("isError").isBoolean()) {
            return dropped(Drop.INVALID_DATA);
        }
        return new Mapped(
                Optional.of(new NewConversationEvent(event.type(), JSON.writeValueAsString(data), event.id())),
                Optional.empty());
    }

    private static Mapped dropped(Drop reason) {
        return new Mapped(Optional.empty(), Optional.of(reason));
    }
}
