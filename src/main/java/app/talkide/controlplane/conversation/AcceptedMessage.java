package app.talkide.controlplane.conversation;

import java.time.Instant;
import java.util.UUID;

/**
 * A message in the outbox, as the browser hears of it.
 *
 * @param duplicate the message had been accepted before under the same client id; nothing new was stored
 */
public record AcceptedMessage(
        UUID messageId, UUID conversationId, String clientMessageId, Instant acceptedAt, boolean duplicate) {}
