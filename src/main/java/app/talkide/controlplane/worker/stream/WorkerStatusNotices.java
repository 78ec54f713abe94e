package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.worker.client.WorkerCallFailed;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tells the user, through {@code worker.status} conversation events, when their worker cannot be reached
 * or is starting, and when it is back. Only changes are written, so a delivery retried every few seconds
 * does not flood the conversation.
 */
@Component
public class WorkerStatusNotices {

    public static final String TYPE = "worker.status";
    public static final String READY = "ready";
    public static final String STARTING = "starting";
    public static final String UNAVAILABLE = "unavailable";
    public static final String UNREACHABLE = "unreachable";
    /** Every engine of the worker is running a turn: the message stays queued. */
    public static final String BUSY = "busy";
    /**
     * The session is still held by the worker's previous pod (a rollout: the old pod drains its running turns,
     * then lets go); the command is retried and nothing is lost. Not "unreachable": the worker answered.
     */
    public static final String HANDOVER = "handover";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ConversationEventLog log;
    private final Map<UUID, String> lastReported = new ConcurrentHashMap<>();

    WorkerStatusNotices(ConversationEventLog log) {
        this.log = log;
    }

    /** Appends {@code worker.status} if the status differs from the last one this replica reported. */
    public void report(UUID conversationId, String status, String detail) {
        String previous = lastReported.put(conversationId, status);
        if (status.equals(previous) || (previous == null && status.equals(READY))) {
            return; // "ready" is news only after trouble
        }
        String data = JSON.writeValueAsString(
                JSON.createObjectNode().put("status", status).put("detail", detail));
        log.append(conversationId, List.of(new NewConversationEvent(TYPE, data, null)));
    }

    /** A command the worker did not carry out: a session still held by the previous pod, or unreachable. */
    public void callFailed(UUID conversationId, WorkerCallFailed failed) {
        if (failed.sessionHeldElsewhere()) {
            report(
                    conversationId,
                    HANDOVER,
                    "A new version of the worker is taking over; the previous one still finishes this"
                            + " conversation's work. Retrying.");
        } else {
            report(conversationId, UNREACHABLE, failed.getMessage());
        }
    }

    public void ready(UUID conversationId) {
        report(conversationId, READY, "The worker is reachable.");
    }
}
