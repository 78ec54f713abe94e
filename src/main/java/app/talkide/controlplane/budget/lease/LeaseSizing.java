package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.LimitWindows;
import org.jspecify.annotations.Nullable;

/**
 * How much a top-up asks for. Leases shrink as a user nears a limit: money is half of what is left above
 * the floor (at most {@code max-micros}), slots and requests half of those free (at most their maxima), so
 * another replica, or the per-call path, always finds the other half. Null when the lease cannot cover
 * what is needed: the caller then reserves the call on its own.
 */
final class LeaseSizing {

    private LeaseSizing() {}

    static LeaseRepository.@Nullable Grant grant(
            BudgetRow row, LocalLease.Needs needs, LimitWindows now, BudgetProperties properties) {
        BudgetProperties.Lease lease = properties.lease();
        BudgetProperties.FairUse fairUse = properties.fairUse();
        long tokensPerHour = row.tokensPerHour() != null ? row.tokensPerHour() : fairUse.tokensPerHour();
        long hourTokens = row.hourStart().isBefore(now.hour()) ? 0 : row.hourTokens();
        if (hourTokens >= tokensPerHour) {
            return null;
        }
        long micros = 0;
        if (needs.money() > 0) {
            long limit = row.limitMicros() != null ? row.limitMicros() : properties.defaultLimitMicros();
            long above = limit - row.spentIn(now) - row.reservedMicros() - lease.floorMicros();
            if (above < needs.money()) {
                return null;
            }
            micros = Math.min(above, Math.max(needs.money(), Math.min(lease.maxMicros(), above / 2)));
        }
        int slots = 0;
        if (needs.slot()) {
            int max = row.maxConcurrent() != null ? row.maxConcurrent() : fairUse.maxConcurrent();
            slots = Math.min(lease.maxSlots(), (max - row.inFlight()) / 2);
            if (slots < 1) {
                return null;
            }
        }
        int permits = 0;
        if (needs.permit()) {
            int rpm = row.requestsPerMinute() != null ? row.requestsPerMinute() : fairUse.requestsPerMinute();
            int used = row.minuteStart().isBefore(now.minute()) ? 0 : row.minuteRequests();
            permits = Math.min(lease.maxPermits(), (rpm - used) / 2);
            if (permits < 1) {
                return null;
            }
        }
        return new LeaseRepository.Grant(micros, slots, permits, hourTokens, tokensPerHour);
    }
}
