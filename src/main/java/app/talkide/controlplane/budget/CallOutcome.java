package app.talkide.controlplane.budget;

import java.util.Locale;

/** How a gateway call ended, as kept in its usage record. */
public enum CallOutcome {
    COMPLETED,
    /** The worker went away mid-call; input and the output so far are billed. */
    CLIENT_CANCELLED,
    /** The upstream answered an error, broke the stream, was unreachable or too slow. */
    UPSTREAM_ERROR,
    /** Refused before reaching the upstream (spending limit or fair use). */
    DENIED,
    /** Ended by the gateway because the next output slice did not fit the spending limit. */
    LIMIT_REACHED,
    /**
     * Admitted, then refused for its request before reaching the upstream: a body too large, too slow,
     * not a valid request, or the worker went away while sending it.
     */
    REJECTED;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
