package app.talkide.controlplane.budget;

import java.util.UUID;

/**
 * Money held for one call in flight. Owned by the request that made it: only that request extends and
 * settles it, so its amount here always equals the amount in the database while the row exists.
 */
public final class Reservation {

    private final UUID id;
    private final String userId;
    private long amountMicros;
    private boolean overrun;

    Reservation(UUID id, String userId, long amountMicros) {
        this.id = id;
        this.userId = userId;
        this.amountMicros = amountMicros;
    }

    public UUID id() {
        return id;
    }

    public String userId() {
        return userId;
    }

    public long amountMicros() {
        return amountMicros;
    }

    /** Whether a soft limit let this call run past the limit. */
    public boolean overrun() {
        return overrun;
    }

    void grew(long deltaMicros, boolean pastTheLimit) {
        amountMicros += deltaMicros;
        overrun |= pastTheLimit;
    }

    @Override
    public String toString() {
        return "Reservation[" + id + ", user=" + userId + ", amount=" + amountMicros + "µ$]";
    }
}
