/**
 * Per-user spending limits and fair-use limits for Anthropic calls, enforced the same on every replica.
 * The face is {@link UserBudgetService}: <b>reserve</b> ({@code reserveSlot} at admission, then
 * {@code reserveEstimate}), <b>extend</b> while a call streams, <b>settle</b> with the actual cost
 * (group-committed by {@link SettlementWriter}), plus status, per-user settings, usage records and
 * reports and their APIs. Beneath it, {@code lease} (per-replica leases) and {@code account} (the
 * user's row, limits and windows, which both reservations and leases count on).
 */
@NullMarked
package app.talkide.controlplane.budget;

import org.jspecify.annotations.NullMarked;
