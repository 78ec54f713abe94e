package app.talkide.controlplane.budget;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gateway call that may settle soon, counted from the moment it arrives rather than from its
 * reservation: a settlement batch waits (up to {@code settlement-wait}) for the calls it counts, so
 * counting them early lets one commit carry the calls that arrived together instead of only those
 * already reserved. Handed to {@link UserBudgetService#reserveSlot(String, SettlementExpected)}, the
 * count passes to the reservation; a call that ends without one uncounts itself on {@link #close}.
 */
public final class SettlementExpected implements AutoCloseable {

    private final AtomicInteger unqueued;
    private final AtomicBoolean counted = new AtomicBoolean(true);

    SettlementExpected(AtomicInteger unqueued) {
        this.unqueued = unqueued;
        unqueued.incrementAndGet();
    }

    /**
     * The reservation carries the count from now on: its settlement uncounts it, closing this no longer
     * does. Counted afresh if this was closed already.
     */
    void passToReservation() {
        if (!counted.compareAndSet(true, false)) {
            unqueued.incrementAndGet();
        }
    }

    @Override
    public void close() {
        if (counted.compareAndSet(true, false)) {
            unqueued.decrementAndGet();
        }
    }
}
