package app.talkide.controlplane.conversation;

import app.talkide.controlplane.membership.Memberships;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * The one check every browser-facing conversation call makes: the conversation exists, belongs to the
 * caller, and the caller is still a member of its tenant-environment. Anything else answers
 * {@link ConversationNotFound}, the same for every other user's conversation, for one in a
 * tenant-environment the caller was removed from, and for an id nobody has.
 */
@Component
public class ConversationAccess {

    private final Conversations conversations;
    private final Memberships memberships;

    ConversationAccess(Conversations conversations, Memberships memberships) {
        this.conversations = conversations;
        this.memberships = memberships;
    }

    public Conversation readableBy(UUID conversationId, String userId) {
        return conversations
                .find(conversationId)
                .filter(conversation -> conversation.ownerUserId().equals(userId))
                .filter(conversation -> memberships.isMember(conversation.tenantEnvironment(), userId))
                .orElseThrow(() -> new ConversationNotFound(conversationId));
    }
}
