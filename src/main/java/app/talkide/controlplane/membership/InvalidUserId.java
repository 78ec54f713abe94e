package app.talkide.controlplane.membership;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** A user id that cannot be one: blank, too long or with control characters. */
class InvalidUserId extends ProblemException {

    InvalidUserId() {
        super(
                HttpStatus.BAD_REQUEST,
                "invalid-user-id",
                "Invalid user id",
                "userId must be 1 to " + UserIds.MAX_LENGTH + " characters without control characters.");
    }
}
