package app.talkide.controlplane.builds;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** The build feature's problem types, one per condition. */
final class BuildProblems {

    private BuildProblems() {}

    static final class BuildsDisabled extends ProblemException {
        BuildsDisabled(String why) {
            super(HttpStatus.CONFLICT, "builds-disabled", "Builds are not available", why);
        }
    }

    static final class InvalidBuildRequest extends ProblemException {
        InvalidBuildRequest(String detail) {
            super(HttpStatus.BAD_REQUEST, "invalid-build-request", "Invalid build request", detail);
        }
    }

    static final class BuildQueueFull extends ProblemException {
        BuildQueueFull(int limit) {
            super(
                    HttpStatus.TOO_MANY_REQUESTS,
                    "build-queue-full",
                    "Build queue full",
                    "This tenant-environment already has " + limit + " builds waiting; try again when one started.");
        }
    }

    /** Unknown, or another conversation's: the same answer, so ids of other conversations reveal nothing. */
    static final class BuildNotFound extends ProblemException {
        BuildNotFound() {
            super(HttpStatus.NOT_FOUND, "build-not-found", "Build not found", "No such build in this conversation.");
        }
    }
}
