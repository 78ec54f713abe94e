package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.Conversation;
import java.time.Instant;
import java.util.UUID;

/** A conversation as the browser API shows it. */
record ConversationView(UUID id, String tenant, String env, String title, Instant createdAt) {
    static ConversationView of(Conversation conversation) {
        return new ConversationView(
                conversation.id(),
                conversation.tenantEnvironment().tenant(),
                conversation.tenantEnvironment().env(),
                conversation.title(),
                conversation.createdAt());
    }
}
