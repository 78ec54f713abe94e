package app.talkide.controlplane.budget;

/** The answer to a request for one more output slice while a call streams. */
public enum ExtensionDecision {
    GRANTED,
    /** Refused by the limit, but a soft limit lets the call run this one slice past it. */
    GRANTED_AS_OVERRUN,
    /** Refused: the call must stop now. */
    REFUSED;

    public boolean granted() {
        return this != REFUSED;
    }
}
