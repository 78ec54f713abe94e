package app.talkide.controlplane.budget;

import java.util.Locale;

/** Why a call was refused; sent to the worker as {@code x-talkide-denial-reason}. */
public enum DenialReason {
    /** The user's spending limit for this period is used up (or the call does not fit what is left). */
    SPENDING_LIMIT,
    /** A fair-use limit: concurrent calls, requests per minute or tokens per hour. */
    FAIR_USE;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
