package app.talkide.controlplane.conversation;

import app.talkide.controlplane.system.ProblemException;
import java.util.UUID;
import org.springframework.http.HttpStatus;

/**
 * The caller may not see a conversation of that id. Said the same way whether it exists for someone
 * else or not at all, so ids cannot be probed.
 */
public class ConversationNotFound extends ProblemException {

    public ConversationNotFound(UUID id) {
        super(
                HttpStatus.NOT_FOUND,
                "conversation-not-found",
                "Conversation not found",
                "There is no conversation " + id + " of yours.");
    }
}
