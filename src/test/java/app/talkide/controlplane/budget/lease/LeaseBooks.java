package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.LimitWindows;

/** Lets tests of the budget's face ask which replica's lease book a lease belongs to. */
public final class LeaseBooks {

    private LeaseBooks() {}

    /** Whether {@code lease} is the current lease of its user in {@code leases} (one replica's book). */
    public static boolean owns(BudgetLeases leases, LocalLease lease) {
        return leases.owns(lease);
    }

    /** A lease of {@code userId} holding {@code micros}, a slot and a request for a call, valid for a minute. */
    public static LocalLease holding(String userId, long micros, LimitWindows now) {
        LocalLease lease = new LocalLease(userId, now.now());
        lease.granted(
                new LeaseRepository.Grant(micros, 1, 1, 0, Long.MAX_VALUE),
                now,
                now.now().plusSeconds(60));
        if (!lease.take(micros, now)) {
            throw new IllegalStateException("a fresh lease covers its own grant");
        }
        return lease;
    }
}
