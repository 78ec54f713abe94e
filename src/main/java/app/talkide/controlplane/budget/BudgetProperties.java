package app.talkide.controlplane.budget;

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
 */
@Validated
@ConfigurationProperties("talkide.budget")
public record BudgetProperties(
        @PositiveOrZero @DefaultValue("25000000") long defaultLimitMicros,
        @NotNull @DefaultValue("month") BudgetPeriod period,
        @NotNull @DefaultValue("hard") Enforcement enforcement,
        @NotNull @DefaultValue("30m") Duration reservationTtl,
        @NotNull @DefaultValue("1m") Duration expiryInterval,
        @Valid @DefaultValue FairUse fairUse) {

    /**
     * @param maxConcurrent calls a user may have in flight at once
     * @param requestsPerMinute calls a user may start per calendar minute
     * @param tokensPerHour uncached tokens (input, cache writes, output) a user may use per clock hour
     */
    public record FairUse(
            @Positive @DefaultValue("8") int maxConcurrent,
            @Positive @DefaultValue("120") int requestsPerMinute,
            @Positive @DefaultValue("10000000") long tokensPerHour) {}
}
