package app.talkide.controlplane.worker.client;

/** What the worker said to {@code POST /sessions/{id}/messages}. */
public enum MessageOutcome {
    /** 202: the message starts a turn, or was already accepted (idempotent on its id). */
    ACCEPTED,
    /** 409: a turn is running; send again when it has ended. */
    BUSY,
    /** 429: every engine the worker can hold is busy; the message was not taken, send it again later. */
    WORKER_BUSY,
    /** 400: the worker will never take this message (e.g. too long). */
    REJECTED
}
