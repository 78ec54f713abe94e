package app.talkide.controlplane.worker.client;

/**
 * A call to a worker did not get an answer the contract defines: unreachable, timed out, a 5xx, or a
 * refused command token. Transient from the control plane's point of view: retried with backoff. The
 * message is safe to show to a user (it never contains a token).
 */
public class WorkerCallFailed extends Exception {

    private final int status;

    public WorkerCallFailed(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    /** The HTTP status, or 0 when no answer came. */
    public int status() {
        return status;
    }
}
