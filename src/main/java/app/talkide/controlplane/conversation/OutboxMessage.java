package app.talkide.controlplane.conversation;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A user message waiting for (or handed to) the worker; {@code id} is the worker's {@code messageId}.
 *
 * @param traceParent the W3C {@code traceparent} of the request that sent it; its delivery continues
 *     that trace. Null if that request was not traced.
 */
public record OutboxMessage(
        UUID id,
        UUID conversationId,
        String text,
        Instant acceptedAt,
        @Nullable String traceParent) {}
