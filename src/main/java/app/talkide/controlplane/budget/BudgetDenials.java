package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.LimitWindows;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Turns a refused reservation into words and a retry time, by looking at which limit the row hit. */
final class BudgetDenials {

    private BudgetDenials() {}

    static @Nullable Denied explain(BudgetRow row, long amount, LimitWindows now, BudgetProperties defaults) {
        Denied spending = spending(row, amount, now, defaults);
        return spending != null ? spending : fairUse(row, now, defaults);
    }

    /** Why {@code amount} more does not fit the user's spending limit; null if it does. */
    static @Nullable Denied spending(BudgetRow row, long amount, LimitWindows now, BudgetProperties defaults) {
        long limit = row.limitMicros() != null ? row.limitMicros() : defaults.defaultLimitMicros();
        long spent = row.spentIn(now);
        if (spent + row.reservedMicros() + amount > limit) {
            long left = Math.max(0, limit - spent - row.reservedMicros());
            String message = spent >= limit
                    ? "Spending limit reached: " + Money.format(spent) + " of " + Money.format(limit)
                            + " used this period. It resets at " + now.periodEnd() + "."
                    : "Spending limit: this call needs about " + Money.format(amount) + " but " + Money.format(left)
                            + " of your " + Money.format(limit) + " limit is left ("
                            + Money.format(row.reservedMicros())
                            + " held by calls in flight). It resets at " + now.periodEnd() + ".";
            // Worth retrying only if the call would fit once the calls in flight have settled.
            boolean fitsLater = spent + amount <= limit;
            return new Denied(
                    DenialReason.SPENDING_LIMIT, message, fitsLater ? null : now.until(now.periodEnd()), fitsLater);
        }
        return null;
    }

    private static @Nullable Denied fairUse(BudgetRow row, LimitWindows now, BudgetProperties defaults) {
        int concurrent = row.maxConcurrent() != null
                ? row.maxConcurrent()
                : defaults.fairUse().maxConcurrent();
        if (row.inFlight() >= concurrent) {
            return new Denied(
                    DenialReason.FAIR_USE,
                    "Fair use: at most " + concurrent + " calls at once; wait for one to finish.",
                    null,
                    true);
        }
        int rpm = row.requestsPerMinute() != null
                ? row.requestsPerMinute()
                : defaults.fairUse().requestsPerMinute();
        if (!row.minuteStart().isBefore(now.minute()) && row.minuteRequests() >= rpm) {
            return new Denied(
                    DenialReason.FAIR_USE,
                    "Fair use: at most " + rpm + " requests per minute.",
                    now.until(now.minute().plus(Duration.ofMinutes(1))),
                    true);
        }
        long tph = row.tokensPerHour() != null
                ? row.tokensPerHour()
                : defaults.fairUse().tokensPerHour();
        if (!row.hourStart().isBefore(now.hour()) && row.hourTokens() >= tph) {
            return new Denied(
                    DenialReason.FAIR_USE,
                    "Fair use: at most " + tph + " tokens per hour.",
                    now.until(now.hour().plus(Duration.ofHours(1))),
                    true);
        }
        return null;
    }

    static Denied busy() {
        return new Denied(DenialReason.FAIR_USE, "Fair use: too many calls at once; try again shortly.", null, true);
    }
}
