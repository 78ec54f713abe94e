/**
 * Each user's budget account, which reservations and leases both count on: the {@code user_budget}
 * row and its SQL (with the per-call reservation rows), the limits it is held to (configured defaults,
 * per-user overrides) and the period, minute and hour windows it counts in.
 */
@NullMarked
package app.talkide.controlplane.budget.account;

import org.jspecify.annotations.NullMarked;
