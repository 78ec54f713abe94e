package app.talkide.controlplane.conversation;

import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * The one check every browser-facing conversation call makes: the conversation exists and belongs to
 * the caller. Anything else answers {@link ConversationNotFound}, the same for every other user's
 * conversation as for an id nobody has.
 */
@Component
public class ConversationAccess {

    private final Conversations conversations;

    ConversationAccess(Conversations conversations) {
        this.conversations = conversations;
    }

    public Conversation readableBy(UUID conversationId, String userId) {
        return conversations
                .find(conversationId)
                .filter(conversation -> conversation.ownerUserId().equals(userId))
                .orElseThrow(() -> new ConversationNotFound(conversationId));
    }
}
