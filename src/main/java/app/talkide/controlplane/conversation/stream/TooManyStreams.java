package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** The user already holds as many open streams as one user may. */
class TooManyStreams extends ProblemException {

    TooManyStreams(int limit) {
        super(
                HttpStatus.TOO_MANY_REQUESTS,
                "too-many-streams",
                "Too many open streams",
                "You have " + limit + " conversation streams open already; close one first.");
    }
}
