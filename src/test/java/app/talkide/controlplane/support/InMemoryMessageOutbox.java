package app.talkide.controlplane.support;

import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.conversation.OutboxMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** A test stand-in for the message outbox; registered only while the application has none of its own. */
public class InMemoryMessageOutbox implements MessageOutbox {

    private final List<OutboxMessage> messages = new ArrayList<>();
    private final Set<UUID> delivered = new HashSet<>();

    /** Stores a message as the browser side would before answering 202. */
    public synchronized OutboxMessage accept(UUID conversationId, String text) {
        OutboxMessage message = new OutboxMessage(UUID.randomUUID(), conversationId, text, Instant.now());
        messages.add(message);
        return message;
    }

    public synchronized boolean isDelivered(UUID messageId) {
        return delivered.contains(messageId);
    }

    @Override
    public synchronized Optional<OutboxMessage> nextUndelivered(UUID conversationId) {
        return messages.stream()
                .filter(m -> m.conversationId().equals(conversationId) && !delivered.contains(m.id()))
                .findFirst();
    }

    @Override
    public synchronized List<UUID> conversationsWithUndelivered() {
        return messages.stream()
                .filter(m -> !delivered.contains(m.id()))
                .map(OutboxMessage::conversationId)
                .distinct()
                .toList();
    }

    @Override
    public synchronized void markDelivered(UUID messageId) {
        delivered.add(messageId);
    }
}
