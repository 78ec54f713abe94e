package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;

/** How a forwarded call ended and what it used: what settlement books. */
record CallUsage(CallOutcome outcome, TokenCounts tokens) {

    static CallUsage free(CallOutcome outcome) {
        return new CallUsage(outcome, TokenCounts.NONE);
    }
}
