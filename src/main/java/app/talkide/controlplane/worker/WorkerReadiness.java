package app.talkide.controlplane.worker;

/** Whether a worker can take commands now. */
public enum WorkerReadiness {
    READY,
    /** Being created, rolled or restarted; expected to become ready. */
    STARTING,
    /** Not there, or failing; an operator may have to act. */
    UNAVAILABLE
}
