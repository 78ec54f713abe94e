package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.lease.LocalLease;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Money held for one call in flight, either as a row of its own or from this replica's lease. Owned by
 * the request that made it: only that request extends and settles it, so its amount here always equals
 * what is held for it (in its row, or in the lease) until it settles.
 */
public final class Reservation {

    private final UUID id;
    private final String userId;
    private final @Nullable LocalLease lease;
    private long amountMicros;
    private boolean overrun;

    /** A reservation of its own in the database (a row in {@code budget_reservation}). */
    Reservation(UUID id, String userId, long amountMicros) {
        this(id, userId, amountMicros, null);
    }

    /** @param lease the replica's lease it holds its amount from (no row of its own), or null */
    Reservation(UUID id, String userId, long amountMicros, @Nullable LocalLease lease) {
        this.id = id;
        this.userId = userId;
        this.amountMicros = amountMicros;
        this.lease = lease;
    }

    @Nullable
    LocalLease lease() {
        return lease;
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
