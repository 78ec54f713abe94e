package app.talkide.controlplane.local.referenceworker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One conversation's session: its ordered event stream, its subscribers, its transcript and whether a
 * turn runs. Every change happens under the session's lock, so an event is persisted, remembered and
 * handed to every subscriber in one step and a subscriber never misses or repeats one.
 */
final class Session {

    enum Acceptance {
        STARTED,
        DUPLICATE,
        BUSY,
        CLOSED
    }

    private final UUID id;
    private final String userId;
    private final String epoch;
    private final SessionFiles files;
    private final List<WorkerEvent> events = new ArrayList<>();
    private final Set<StreamSubscriber> subscribers = new LinkedHashSet<>();
    private final Set<String> acceptedMessages = new HashSet<>();
    private final List<JsonNode> transcript = new ArrayList<>();
    private long seq;
    private @Nullable RunningTurn turn;
    private boolean halted;

    Session(UUID id, String userId, String epoch, SessionFiles files) {
        this.id = id;
        this.userId = userId;
        this.epoch = epoch;
        this.files = files;
    }

    UUID id() {
        return id;
    }

    String userId() {
        return userId;
    }

    /** Rebuilds the in-memory state from what the files hold; used once, right after loading. */
    synchronized void restore(List<ObjectNode> storedEvents, List<ObjectNode> storedTranscript) {
        for (ObjectNode stored : storedEvents) {
            WorkerEvent event = new WorkerEvent(
                    stored.get("id").asString(), stored.get("type").asString(), (ObjectNode) stored.get("data"));
            events.add(event);
            seq = Long.parseLong(event.id().substring(event.id().lastIndexOf('-') + 1));
            if (event.type().equals("turn.started")) {
                acceptedMessages.add(event.data().path("messageId").asString());
            }
        }
        transcript.addAll(storedTranscript);
    }

    /** The turn that was running when the worker died, if any: started but never ended. */
    synchronized @Nullable ObjectNode unfinishedTurn() {
        for (int i = events.size() - 1; i >= 0; i--) {
            WorkerEvent event = events.get(i);
            if (event.type().equals("turn.completed") || event.type().equals("turn.failed")) {
                return null;
            }
            if (event.type().equals("turn.started")) {
                return event.data();
            }
        }
        return null;
    }

    synchronized WorkerEvent emit(String type, ObjectNode data) {
        WorkerEvent event = new WorkerEvent(epoch + "-" + (++seq), type, data);
        if (halted) {
            return event; // a halted worker writes nothing more, as a killed process would
        }
        files.appendEvent(event);
        events.add(event);
        subscribers.removeIf(subscriber -> !subscriber.offer(event));
        return event;
    }

    /** Registers a subscriber and returns what it missed after {@code lastEventId}, atomically. */
    synchronized List<WorkerEvent> subscribe(@Nullable String lastEventId, StreamSubscriber subscriber) {
        if (!halted) {
            subscribers.add(subscriber);
        } else {
            subscriber.end();
        }
        return List.copyOf(events.subList(replayFrom(lastEventId), events.size()));
    }

    synchronized void unsubscribe(StreamSubscriber subscriber) {
        subscribers.remove(subscriber);
    }

    /** Index of the first event after {@code lastEventId}; an id of another epoch replays everything. */
    private int replayFrom(@Nullable String lastEventId) {
        if (lastEventId == null || !lastEventId.startsWith(epoch + "-")) {
            return 0;
        }
        try {
            long after = Long.parseLong(lastEventId.substring(epoch.length() + 1));
            return (int) Math.max(0, Math.min(after, events.size()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    synchronized Acceptance accept(String messageId, RunningTurn next) {
        if (halted) {
            return Acceptance.CLOSED;
        }
        if (acceptedMessages.contains(messageId)) {
            return Acceptance.DUPLICATE;
        }
        if (turn != null) {
            return Acceptance.BUSY;
        }
        // Accepted and recorded as started in one step: a stop comes before (the message is refused and
        // delivered again) or after (a restart finds it started and reports it failed), never between,
        // where the control plane would hold a 202 for a message no file knows. If the write fails,
        // nothing was accepted.
        emit(
                "turn.started",
                HttpExchanges.JSON
                        .createObjectNode()
                        .put("turnId", next.id().toString())
                        .put("messageId", messageId));
        acceptedMessages.add(messageId);
        turn = next;
        return Acceptance.STARTED;
    }

    /** Ends the turn and emits its last event in one step, so no other message can slip in between. */
    synchronized void finishTurn(RunningTurn ended, String type, ObjectNode data) {
        turnEnded(ended);
        emit(type, data);
    }

    synchronized void turnEnded(RunningTurn ended) {
        if (turn == ended) {
            turn = null;
        }
    }

    synchronized @Nullable RunningTurn runningTurn() {
        return turn;
    }

    synchronized boolean isHalted() {
        return halted;
    }

    synchronized List<JsonNode> transcript() {
        return List.copyOf(transcript);
    }

    synchronized void appendTranscript(JsonNode message) {
        if (halted) {
            return;
        }
        files.appendTranscript(message);
        transcript.add(message);
    }

    /** Stops everything as a killed process would: no further event is written or sent. */
    void halt() {
        RunningTurn running;
        synchronized (this) {
            halted = true;
            running = turn;
            subscribers.forEach(StreamSubscriber::end);
            subscribers.clear();
        }
        if (running != null) {
            running.abandon();
        }
        files.close();
    }

    /** Ends the session for good: the running turn stops, the stream ends, the files are removed. */
    void delete() {
        halt();
        files.delete();
    }
}
