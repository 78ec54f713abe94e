package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.NewConversationEvent;
import org.jspecify.annotations.Nullable;

/**
 * One event read from a worker stream on connection number {@code connection}, waiting to be appended;
 * {@code event} is null for one the mapper dropped (its id still moves the cursor).
 */
record StreamRead(
        long connection,
        @Nullable NewConversationEvent event,
        @Nullable String id) {}
