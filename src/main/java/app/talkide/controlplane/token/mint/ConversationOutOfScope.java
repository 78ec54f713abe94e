package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/**
 * The conversation is not in the caller's tenant-environment. Deliberately the same answer whether it
 * exists elsewhere or not at all, so a worker cannot probe for other tenants' conversations.
 */
class ConversationOutOfScope extends ProblemException {

    ConversationOutOfScope() {
        super(
                HttpStatus.FORBIDDEN,
                "conversation-out-of-scope",
                "Conversation out of scope",
                "This worker may not act for that conversation.");
    }
}
