package app.talkide.controlplane.budget.account;

import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.jspecify.annotations.Nullable;
import org.springframework.modulith.NamedInterface;

/**
 * A user's overrides of the configured budget defaults; a null field follows the default.
 *
 * @param limitMicros spending limit per period in micro-dollars (0 blocks every paid call)
 */
// Part of the budget's face (BudgetStatus, UserBudgetService.configure): other features may name it.
@NamedInterface("settings")
public record UserBudgetSettings(
        @PositiveOrZero @Nullable Long limitMicros,
        @Nullable Enforcement enforcement,
        @Positive @Nullable Integer maxConcurrent,
        @Positive @Nullable Integer requestsPerMinute,
        @Positive @Nullable Long tokensPerHour) {

    public static final UserBudgetSettings DEFAULTS = new UserBudgetSettings(null, null, null, null, null);
}
