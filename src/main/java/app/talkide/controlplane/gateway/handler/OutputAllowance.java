package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.gateway.metering.StreamMeter;
import app.talkide.controlplane.gateway.pricing.ModelPrice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progressive reservation of one stream. The call starts with its input estimate and one slice of
 * output reserved; once the upstream says what the input really is, and each time the output counted so
 * far reaches what is reserved, the reservation grows to cover the input and one more slice. When the
 * budget refuses, the stream must stop: spend never passes what the limit allowed by more than the
 * tokens of the event that crossed the slice.
 *
 * <p>When the budget cannot be asked at all (the database failed), the stream stops as well: going on
 * unreserved could pass the limit by any amount. What was used until then is still billed.
 */
final class OutputAllowance {

    private static final Logger log = LoggerFactory.getLogger(OutputAllowance.class);

    private final UserBudgetService budgets;
    private final Reservation reservation;
    private final ModelPrice price;
    private final int slice;
    private long reservedOutput;
    private boolean inputSeen;
    private boolean budgetUnavailable;

    OutputAllowance(
            UserBudgetService budgets, Reservation reservation, ModelPrice price, int slice, long reservedOutput) {
        this.budgets = budgets;
        this.reservation = reservation;
        this.price = price;
        this.slice = slice;
        this.reservedOutput = reservedOutput;
    }

    /** Called after every event; false when the stream has used up what the budget allows. */
    boolean allows(StreamMeter meter) {
        long output = meter.outputSoFar();
        boolean inputNowKnown = !inputSeen && meter.started();
        if (output < reservedOutput && !inputNowKnown) {
            return true;
        }
        inputSeen |= meter.started();
        long wanted = reservedOutput;
        while (output >= wanted) {
            wanted += slice;
        }
        TokenCounts counted = meter.counts();
        long needed = price.cost(new TokenCounts(
                counted.input(), counted.cacheWrite5m(), counted.cacheWrite1h(), counted.cacheRead(), wanted));
        long delta = needed - reservation.amountMicros();
        if (delta > 0 && !extend(delta)) {
            return false;
        }
        reservedOutput = wanted;
        return true;
    }

    /**
     * What the stream is billed: the upstream's own output count once it sent one; else, for a stream cut
     * before its final {@code message_delta}, at least the output reserved so far. Deltas show only what
     * the worker can see: thinking (summarized, omitted or redacted) is billed in full, and non-Latin text
     * runs near a token a character, so an estimate from what was seen would leave most of it unbilled.
     */
    TokenCounts billed(StreamMeter meter) {
        return meter.countsAtLeast(reservedOutput);
    }

    /** True once a refusal came from a failure to reach the budget rather than from the budget itself. */
    boolean budgetUnavailable() {
        return budgetUnavailable;
    }

    private boolean extend(long delta) {
        try {
            return budgets.extend(reservation, delta).granted();
        } catch (RuntimeException failed) {
            budgetUnavailable = true;
            log.warn("Could not extend a stream's budget reservation; ending the stream: {}", failed.toString());
            return false;
        }
    }
}
