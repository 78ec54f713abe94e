/**
 * Per-replica leases: part of a user's budget, slots and requests held in memory so calls are admitted
 * without a statement; topped up (also ahead of need), recalled, renewed and given back here. The budget
 * reaches them through {@link BudgetLeases} (take, grow, settle) and {@link LeaseReturns} (give back,
 * recall, revoke, sweep); {@link LocalLease} is an opaque handle outside this package.
 */
@NullMarked
package app.talkide.controlplane.budget.lease;

import org.jspecify.annotations.NullMarked;
