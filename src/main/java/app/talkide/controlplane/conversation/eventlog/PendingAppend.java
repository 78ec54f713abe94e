package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** One caller's append, waiting for the group commit that makes it durable. */
record PendingAppend(
        UUID conversationId, List<NewConversationEvent> events, CompletableFuture<List<ConversationEvent>> done) {

    PendingAppend(UUID conversationId, List<NewConversationEvent> events) {
        this(conversationId, List.copyOf(events), new CompletableFuture<>());
    }
}
