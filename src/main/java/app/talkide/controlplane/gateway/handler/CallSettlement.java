package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.gateway.pricing.ModelPrice;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settlement of one reserved call, made exactly once. A call whose worker will see it complete
 * (the stream's {@code message_stop}, the last byte of a JSON answer, or the gateway's own closing
 * error event) settles <em>before</em> those final bytes are written and waits until the settlement is
 * durable, so a crash can lose no usage a worker saw completed. Settlements of many calls share one
 * commit ({@code budget.SettlementWriter}), so the wait is about one commit however many calls run. A
 * call that ends otherwise (its worker went away) settles without waiting.
 */
final class CallSettlement {

    private static final Logger log = LoggerFactory.getLogger(CallSettlement.class);

    /** Longest the final bytes wait for the database; past it the worker gets an error instead. */
    static final Duration DURABLE_WAIT = Duration.ofSeconds(30);

    private final UserBudgetService budgets;
    private final GatewayMetrics metrics;
    private final Reservation reservation;
    private final GatewayCall call;
    private boolean settled;

    /** For a call admitted with {@code reservation}; priced once its body is read ({@link GatewayCall#priced}). */
    CallSettlement(UserBudgetService budgets, GatewayMetrics metrics, Reservation reservation, GatewayCall call) {
        this.budgets = budgets;
        this.metrics = metrics;
        this.reservation = reservation;
        this.call = call;
    }

    /** What the call holds of the budget until it settles. */
    Reservation reservation() {
        return reservation;
    }

    /** Settles and waits until it is durable; false if it failed or took too long (the bytes must not go). */
    boolean settleDurably(CallOutcome outcome, TokenCounts tokens) {
        if (settled) {
            return true;
        }
        CompletableFuture<Void> committed = submit(outcome, tokens);
        try {
            committed.get(DURABLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException failed) {
            log.warn("Usage of gateway call {} not recorded in time; ending it with an error", call.requestId());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Settles without waiting, unless the call settled already. */
    void settle(CallOutcome outcome, TokenCounts tokens) {
        if (!settled) {
            submit(outcome, tokens);
        }
    }

    private CompletableFuture<Void> submit(CallOutcome outcome, TokenCounts tokens) {
        settled = true;
        // A call refused before its body was priced used nothing: it only gives its admission back.
        @Nullable ModelPrice price = call.priceIfKnown();
        long cost = price == null ? 0 : price.cost(tokens);
        if (price != null) {
            metrics.usage(price.family(), tokens, cost);
        }
        try {
            return budgets.settle(reservation, call.record(tokens, cost, outcome));
        } catch (RuntimeException e) {
            log.error("Could not settle gateway call {} (its reservation expires)", call.requestId(), e);
            return CompletableFuture.failedFuture(e);
        }
    }
}
