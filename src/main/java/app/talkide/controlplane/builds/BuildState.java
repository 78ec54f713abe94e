package app.talkide.controlplane.builds;

/** A build's life: queued until the leader dispatches its Job, running until the Job ends or is cancelled. */
public enum BuildState {
    QUEUED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED;

    public boolean finished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
}
