package app.talkide.controlplane.conversation;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** A stored conversation event; {@code seq} is its position in the conversation, from 1, without gaps. */
public record ConversationEvent(
        UUID conversationId,
        long seq,
        String type,
        String data,
        @Nullable String sourceEventId,
        Instant createdAt) {}
