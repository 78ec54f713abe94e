package app.talkide.controlplane.conversation;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** A client message id already used in this conversation for another text: a client bug, not a retry. */
class ClientMessageIdReused extends ProblemException {

    ClientMessageIdReused() {
        super(
                HttpStatus.CONFLICT,
                "client-message-id-reused",
                "Client message id reused",
                "This conversation already has a different message with that clientMessageId.");
        getBody().setProperty("errors", java.util.List.of("clientMessageId: already used for another text"));
    }
}
