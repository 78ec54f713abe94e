package app.talkide.controlplane.budget.lease;

/** Lets tests of the budget's face ask which replica's lease book a lease belongs to. */
public final class LeaseBooks {

    private LeaseBooks() {}

    /** Whether {@code lease} is the current lease of its user in {@code leases} (one replica's book). */
    public static boolean owns(BudgetLeases leases, LocalLease lease) {
        return leases.owns(lease);
    }
}
