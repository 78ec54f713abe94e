package app.talkide.controlplane.worker.client;

/** The worker has no session for the conversation (404): open it with {@code POST /sessions} first. */
public class SessionUnknown extends Exception {

    public SessionUnknown() {
        super("the worker has no such session", null, false, false);
    }
}
