package app.talkide.controlplane.worker.client;

import org.jspecify.annotations.Nullable;

/**
 * A call to a worker did not get an answer the contract defines: unreachable, timed out, a 5xx, or a
 * refused command token. Transient from the control plane's point of view: retried with backoff. The
 * message is safe to show to a user (it never contains a token).
 */
public class WorkerCallFailed extends Exception {

    /** The worker's problem type when another of its pods still holds the session's lease (a rollout). */
    public static final String SESSION_HELD_ELSEWHERE = "session-held-elsewhere";

    private final int status;
    private final @Nullable String problem;

    public WorkerCallFailed(int status, String message) {
        this(status, null, message);
    }

    /** @param problem the last segment of the worker's problem {@code type}, when it sent one */
    public WorkerCallFailed(int status, @Nullable String problem, String message) {
        super(message, null, false, false);
        this.status = status;
        this.problem = problem;
    }

    /**
     * The worker answered, but another of its pods still serves this session (a rollout's old pod draining,
     * or one that died before its lease ran out): nothing is wrong, the call is retried until it lets go.
     */
    public boolean sessionHeldElsewhere() {
        return status == 503 && SESSION_HELD_ELSEWHERE.equals(problem);
    }

    /** The HTTP status, or 0 when no answer came. */
    public int status() {
        return status;
    }
}
