package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.AcceptedMessage;
import java.time.Instant;
import java.util.UUID;

/** The answer to a sent message: accepted into the outbox, or a duplicate of one that was. */
record MessageReceipt(
        UUID messageId, UUID conversationId, String clientMessageId, Instant acceptedAt, boolean duplicate) {
    static MessageReceipt of(AcceptedMessage accepted) {
        return new MessageReceipt(
                accepted.messageId(),
                accepted.conversationId(),
                accepted.clientMessageId(),
                accepted.acceptedAt(),
                accepted.duplicate());
    }
}
