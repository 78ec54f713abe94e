package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;

/** How a forwarded call ended and what it used: what settlement books. */
record Outcome(CallOutcome outcome, TokenCounts tokens) {

    static Outcome free(CallOutcome outcome) {
        return new Outcome(outcome, TokenCounts.NONE);
    }
}
