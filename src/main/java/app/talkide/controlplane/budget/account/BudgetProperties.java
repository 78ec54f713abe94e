package app.talkide.controlplane.budget.account;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Defaults for every user's budget; the admin API overrides them per user.
 *
 * @param defaultLimitMicros spending limit per period in micro-dollars for users without an override
 *     (default $25)
 * @param period the budget period: {@code day}, {@code week} (from Monday) or {@code month}, in UTC
 * @param enforcement {@code hard}: a stream that would pass the limit is ended with an error event;
 *     {@code soft}: it may run one more output slice past the limit, recorded as overrun, then it ends
 * @param reservationTtl how long a reservation lives without being extended or settled; a reservation
 *     whose request died with its replica is given back after this
 * @param expiryInterval how often each replica looks for dead reservations
 * @param fairUse per-user fair-use limits, shared by all replicas
 * @param lease how much of a user's budget, slots and requests a replica takes at once to admit calls
 *     from memory (see {@link Lease})
 */
@Validated
@ConfigurationProperties("talkide.budget")
public record BudgetProperties(
        @PositiveOrZero @DefaultValue("25000000") long defaultLimitMicros,
        @NotNull @DefaultValue("month") BudgetPeriod period,
        @NotNull @DefaultValue("hard") Enforcement enforcement,
        @NotNull @DefaultValue("30m") Duration reservationTtl,
        @NotNull @DefaultValue("1m") Duration expiryInterval,
        @Valid @DefaultValue FairUse fairUse,
        @Valid @DefaultValue Lease lease) {

    /** The limits a user without limits of their own gets: the row a first call creates. */
    public BudgetRepository.Limits defaultLimits() {
        return new BudgetRepository.Limits(
                defaultLimitMicros, fairUse.maxConcurrent(), fairUse.requestsPerMinute(), fairUse.tokensPerHour());
    }

    /**
     * @param maxConcurrent calls a user may have in flight at once
     * @param requestsPerMinute calls a user may start per calendar minute
     * @param tokensPerHour uncached tokens (input, cache writes, output) a user may use per clock hour
     */
    public record FairUse(
            @Positive @DefaultValue("8") int maxConcurrent,
            @Positive @DefaultValue("120") int requestsPerMinute,
            @Positive @DefaultValue("10000000") long tokensPerHour) {}

    /**
     * Per-replica leases: a replica reserves calls from a lease held in memory and goes to the database
     * only to top it up, give it back or settle (in groups). All leases together never pass a limit.
     *
     * @param enabled false: every call reserves in the database, as before leases
     * @param maxMicros the most money one top-up adds to a replica's lease of one user
     * @param floorMicros leases never take the last this much of a user's budget: those calls reserve
     *     one by one in the database, so a user who can afford the next slice is not refused because
     *     another replica holds part of the budget
     * @param maxSlots the most concurrency slots one top-up adds (it takes at most half of those free)
     * @param maxPermits the most requests of the current minute one top-up adds (at most half of those
     *     free)
     * @param idle a lease no call used for this long is given back
     * @param ttl a lease not renewed for this long (its replica died) is given back by any replica;
     *     renewed every third of it while in use
     */
    public record Lease(
            @DefaultValue("true") boolean enabled,
            @PositiveOrZero @DefaultValue("1000000") long maxMicros,
            @PositiveOrZero @DefaultValue("2000000") long floorMicros,
            @Positive @DefaultValue("8") int maxSlots,
            @Positive @DefaultValue("60") int maxPermits,
            @NotNull @DefaultValue("2s") Duration idle,
            @NotNull @DefaultValue("60s") Duration ttl) {}
}
