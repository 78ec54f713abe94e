package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import java.time.Instant;

/**
 * A user's budget in the current period, as {@code GET /api/me/usage} and the admin API show it.
 *
 * @param remainingMicros what is left to spend: limit minus spent minus reserved, never negative
 * @param settings the user's overrides (null fields follow the defaults)
 */
public record BudgetStatus(
        String userId,
        Instant periodStart,
        Instant periodEnd,
        long spentMicros,
        long reservedMicros,
        long limitMicros,
        long remainingMicros,
        Enforcement enforcement,
        int callsInFlight,
        UserBudgetSettings settings) {

    static BudgetStatus of(BudgetRow row, LimitWindows now, BudgetProperties defaults) {
        long limit = row.limitMicros() != null ? row.limitMicros() : defaults.defaultLimitMicros();
        long spent = row.spentIn(now);
        return new BudgetStatus(
                row.userId(),
                now.period(),
                now.periodEnd(),
                spent,
                row.reservedMicros(),
                limit,
                Math.max(0, limit - spent - row.reservedMicros()),
                row.enforcement() != null ? row.enforcement() : defaults.enforcement(),
                row.inFlight(),
                row.settings());
    }

    static BudgetStatus fresh(String userId, LimitWindows now, BudgetProperties defaults) {
        return new BudgetStatus(
                userId,
                now.period(),
                now.periodEnd(),
                0,
                0,
                defaults.defaultLimitMicros(),
                defaults.defaultLimitMicros(),
                defaults.enforcement(),
                0,
                UserBudgetSettings.DEFAULTS);
    }
}
