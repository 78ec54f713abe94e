package app.talkide.controlplane.conversation;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Messages users sent, persisted before they are acknowledged (202) and kept until a worker has
 * accepted them. The worker side delivers them in order, one turn at a time per conversation.
 */
public interface MessageOutbox {

    /** The oldest message of the conversation not yet accepted by its worker. */
    Optional<OutboxMessage> nextUndelivered(UUID conversationId);

    /** Conversations that have at least one undelivered message (e.g. to resume after a restart). */
    List<UUID> conversationsWithUndelivered();

    /**
     * The {@code traceparent} stored with a message (delivered or not), so what happens to it later (its
     * turn's end) can be found in the same trace. Empty if unknown, untraced or gone.
     */
    Optional<String> traceParentOf(UUID messageId);

    /** Records that the worker accepted the message; idempotent. */
    void markDelivered(UUID messageId);
}
