package app.talkide.controlplane.conversation;

import java.time.Instant;
import java.util.UUID;

/** A user message waiting for (or handed to) the worker; {@code id} is the worker's {@code messageId}. */
public record OutboxMessage(UUID id, UUID conversationId, String text, Instant acceptedAt) {}
