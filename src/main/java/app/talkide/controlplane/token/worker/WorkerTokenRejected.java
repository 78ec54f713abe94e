package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.token.RejectionReason;

/** A WorkerToken failed verification; carries only the reason, never the token. */
public class WorkerTokenRejected extends Exception {

    private final RejectionReason reason;

    public WorkerTokenRejected(RejectionReason reason) {
        super("worker token rejected: " + reason.code(), null, false, false);
        this.reason = reason;
    }

    public RejectionReason reason() {
        return reason;
    }
}
