package app.talkide.controlplane.local.referenceworker;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.node.ObjectNode;

/**
 * The worker's sessions: in memory while it runs, on disk under the config directory for good. After a
 * restart a session is loaded on first use, exactly where it stopped; a turn the old process was running
 * is closed with {@code turn.failed} / {@code worker_restarted}, so the control plane knows it ended.
 *
 * <p>Once halted the store serves nothing more. A command that arrived just before the stop would otherwise
 * load the session again from disk into this dying process, accept a message it can never run and mark it
 * as started in the files the restarted worker reads, so that worker would answer the redelivery as a
 * duplicate and the message would be lost.
 */
final class SessionStore {

    /** What {@code POST /sessions} did. */
    record Opened(Session session, boolean created, boolean resumed) {}

    private final Path configDir;
    private final Clock clock;
    private final Map<UUID, Session> sessions = new ConcurrentHashMap<>();
    private boolean halted;

    SessionStore(Path configDir, Clock clock) {
        this.configDir = configDir;
        this.clock = clock;
    }

    /** Finds or creates the session; throws {@link SessionOwnedByOther} if it belongs to someone else. */
    synchronized Opened open(UUID conversationId, String userId) {
        refuseIfHalted();
        Optional<Session> existing = find(conversationId);
        if (existing.isPresent()) {
            if (!existing.get().userId().equals(userId)) {
                throw new SessionOwnedByOther();
            }
            return new Opened(existing.get(), false, true);
        }
        String epoch = Long.toString(clock.millis(), 36);
        ObjectNode header = HttpExchanges.JSON
                .createObjectNode()
                .put("conversationId", conversationId.toString())
                .put("userId", userId)
                .put("epoch", epoch)
                .put("createdAt", clock.instant().toString());
        Session session =
                new Session(conversationId, userId, epoch, SessionFiles.create(configDir, conversationId, header));
        sessions.put(conversationId, session);
        session.emit("session.status", status("ready", "new session"));
        return new Opened(session, true, false);
    }

    /** The session in memory, or loaded from disk after a restart. */
    synchronized Optional<Session> find(UUID conversationId) {
        refuseIfHalted();
        Session session = sessions.get(conversationId);
        if (session != null) {
            return Optional.of(session);
        }
        if (!SessionFiles.exist(configDir, conversationId)) {
            return Optional.empty();
        }
        session = load(conversationId);
        sessions.put(conversationId, session);
        return Optional.of(session);
    }

    synchronized boolean delete(UUID conversationId) {
        Optional<Session> session = find(conversationId);
        session.ifPresent(Session::delete);
        sessions.remove(conversationId);
        return session.isPresent();
    }

    /** Stops every session as a killed process would. */
    synchronized void haltAll() {
        halted = true;
        sessions.values().forEach(Session::halt);
        sessions.clear();
    }

    private void refuseIfHalted() {
        if (halted) {
            throw new WorkerStopping();
        }
    }

    private Session load(UUID conversationId) {
        SessionFiles files = SessionFiles.existing(configDir, conversationId);
        ObjectNode header = files.header();
        Session session = new Session(
                conversationId,
                header.get("userId").asString(),
                header.get("epoch").asString(),
                files);
        session.restore(files.readEvents(), files.readTranscript());
        ObjectNode unfinished = session.unfinishedTurn();
        if (unfinished != null) {
            ObjectNode failed = HttpExchanges.JSON
                    .createObjectNode()
                    .put("turnId", unfinished.path("turnId").asString())
                    .put("messageId", unfinished.path("messageId").asString());
            failed.set(
                    "error",
                    HttpExchanges.JSON
                            .createObjectNode()
                            .put("type", "worker_restarted")
                            .put("message", "The worker restarted while this turn was running."));
            session.emit("turn.failed", failed);
        }
        session.emit("session.status", status("resumed", "session resumed from " + configDir.getFileName()));
        return session;
    }

    static ObjectNode status(String status, String detail) {
        return HttpExchanges.JSON.createObjectNode().put("status", status).put("detail", detail);
    }

    /** A command that reached the worker while it stops; the caller tries again once it is back. */
    static final class WorkerStopping extends RuntimeException {
        WorkerStopping() {
            super("the worker is stopping", null, false, false);
        }
    }

    /** {@code POST /sessions} for a conversation whose session another user owns. */
    static final class SessionOwnedByOther extends RuntimeException {
        SessionOwnedByOther() {
            super("session belongs to another user", null, false, false);
        }
    }
}
