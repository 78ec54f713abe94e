package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.lease.LeaseTopUpsAhead;
import org.jspecify.annotations.Nullable;

/** What one commit books on one user's row and lease row, and the lease's top-up ahead of need. */
final class UserSettlement {
    long cost;
    long released;
    int slots;
    long tokens;
    boolean settles;
    boolean leased;
    long shrink;
    LeaseTopUpsAhead.@Nullable TopUp topUp;

    void add(UsageRecord record, long releasedMicros, int freedSlots) {
        settles = true;
        cost += record.costMicros();
        released += releasedMicros;
        slots += freedSlots;
        tokens += record.tokens().uncached();
    }

    /** A call reserved from the lease: the lease shrinks by its share of the cost. */
    void fromLease(UsageRecord record, long leaseShrink) {
        add(record, 0, 0);
        leased = true;
        shrink += leaseShrink;
    }
}
