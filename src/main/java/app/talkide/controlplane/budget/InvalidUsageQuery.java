package app.talkide.controlplane.budget;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** A usage report or budget request that cannot be answered as asked. */
class InvalidUsageQuery extends ProblemException {

    InvalidUsageQuery(String detail) {
        super(HttpStatus.BAD_REQUEST, "invalid-usage-query", "Invalid usage query", detail);
    }
}
