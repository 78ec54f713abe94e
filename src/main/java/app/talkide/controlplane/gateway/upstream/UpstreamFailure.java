package app.talkide.controlplane.gateway.upstream;

/** The upstream could not be reached ({@code timedOut} false: 502) or did not answer in time (504). */
public final class UpstreamFailure extends Exception {

    private final boolean timedOut;

    UpstreamFailure(String message, boolean timedOut, Throwable cause) {
        // The cause's message may name the URL but never a header, so the key cannot leak through it.
        super(message, cause);
        this.timedOut = timedOut;
    }

    public boolean timedOut() {
        return timedOut;
    }
}
