package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** A desired state the cluster must not be given: a malformed quantity, image or label. */
class InvalidDesiredState extends ProblemException {

    InvalidDesiredState(String detail) {
        super(HttpStatus.BAD_REQUEST, "invalid-desired-state", "Invalid desired state", detail);
    }
}
