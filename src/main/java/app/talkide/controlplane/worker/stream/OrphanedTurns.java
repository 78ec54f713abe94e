package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ends a turn that no worker will end. A worker that reports a session as new ({@code session.status}
 * {@code ready}, a new event-id epoch) does not remember it, so a turn the log shows as running was lost
 * with the old session: the worker that resumes a session says so itself with {@code turn.failed}, one
 * that starts afresh cannot. Without an end, the browser waits forever and no next message is delivered.
 */
final class OrphanedTurns {

    static final Set<String> TURN_EVENTS = Set.of("turn.started", "turn.completed", "turn.failed");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private OrphanedTurns() {}

    /**
     * The batch, with a {@code turn.failed} ({@code worker_restarted}) before each new-session report that
     * finds a turn open (in the log before the batch, or earlier in the batch); the batch itself when none.
     */
    static List<NewConversationEvent> close(
            ConversationEventLog log, UUID conversationId, List<NewConversationEvent> batch) {
        List<NewConversationEvent> result = null;
        String open = null;
        boolean known = false;
        for (int i = 0; i < batch.size(); i++) {
            NewConversationEvent event = batch.get(i);
            if (isNewSession(event)) {
                if (!known) {
                    open = log.lastOfTypes(conversationId, TURN_EVENTS)
                            .filter(last -> last.type().equals("turn.started"))
                            .map(ConversationEvent::data)
                            .map(OrphanedTurns::turnId)
                            .orElse(null);
                    known = true;
                }
                if (open != null) {
                    if (result == null) {
                        result = new ArrayList<>(batch.subList(0, i));
                    }
                    result.add(failed(open));
                    open = null;
                }
            } else if (TURN_EVENTS.contains(event.type())) {
                open = event.type().equals("turn.started") ? turnId(event.data()) : null;
                known = true;
            }
            if (result != null) {
                result.add(event);
            }
        }
        return result == null ? batch : result;
    }

    private static boolean isNewSession(NewConversationEvent event) {
        if (!event.type().equals("session.status")) {
            return false;
        }
        try {
            return "ready".equals(JSON.readTree(event.data()).path("status").asString(""));
        } catch (JacksonException e) {
            return false;
        }
    }

    private static @Nullable String turnId(String data) {
        try {
            JsonNode turnId = JSON.readTree(data).path("turnId");
            return turnId.isString() ? turnId.asString() : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static NewConversationEvent failed(String turnId) {
        ObjectNode data = JSON.createObjectNode().put("turnId", turnId);
        data.set(
                "error",
                JSON.createObjectNode()
                        .put("type", "worker_restarted")
                        .put("message", "The worker restarted without this turn's session; the turn was lost."));
        // Keyed by turn: a replayed report, or a second replica seeing the same one, adds nothing.
        return new NewConversationEvent("turn.failed", JSON.writeValueAsString(data), "cp-worker-restarted:" + turnId);
    }
}
