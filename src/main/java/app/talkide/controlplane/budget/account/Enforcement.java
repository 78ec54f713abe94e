package app.talkide.controlplane.budget.account;

import org.springframework.modulith.NamedInterface;

/** What happens to a running stream when its next output slice no longer fits the limit. */
// Part of the budget's face (BudgetStatus, UserBudgetService.configure): other features may name it.
@NamedInterface("settings")
public enum Enforcement {
    /** End the stream with an Anthropic error event: spend stays within the limit. */
    HARD,
    /** Let it run one more slice, recorded as overrun, then end it: spend passes the limit by at most a slice. */
    SOFT
}
