package app.talkide.controlplane.conversation;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The durable, ordered log of everything that happens in a conversation; the browser stream is a view
 * of it. Every event gets the conversation's next sequence number and is persisted before anyone sees
 * it; then every replica's subscribers are notified.
 */
public interface ConversationEventLog {

    /**
     * Appends events in the given order and returns them as stored. An event whose
     * {@link NewConversationEvent#sourceEventId()} was already appended to this conversation is skipped,
     * so a worker stream resumed after a failover never duplicates an event.
     */
    List<ConversationEvent> append(UUID conversationId, List<NewConversationEvent> events);

    /** The newest event of one of these types, if any (e.g. whether the last turn event started a turn). */
    Optional<ConversationEvent> lastOfTypes(UUID conversationId, Collection<String> types);

    /** Events with a sequence number greater than {@code afterSeq}, oldest first, at most {@code limit}. */
    List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit);
}
