package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.BudgetDecision;
import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.pricing.PriceList;
import app.talkide.controlplane.gateway.upstream.UpstreamResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@code POST /v1/messages/count_tokens}: free, but admitted like any call, so a worker cannot flood the
 * upstream under the product's key: a user over a spending or fair-use limit is refused before the body
 * is read, and each call holds one of the user's concurrent slots and one request of their minute from
 * then until it ends (its admission, {@link UserBudgetService#reserveSlot}).
 */
@Component
class CountTokensHandler {

    private final RequestBody bodies;
    private final Forwarder forwarder;
    private final PriceList prices;
    private final UserBudgetService budgets;
    private final StallWatchdog watchdog;

    CountTokensHandler(
            RequestBody bodies,
            Forwarder forwarder,
            PriceList prices,
            UserBudgetService budgets,
            StallWatchdog watchdog) {
        this.bodies = bodies;
        this.forwarder = forwarder;
        this.prices = prices;
        this.budgets = budgets;
        this.watchdog = watchdog;
    }

    void handle(GatewayCall call, HttpServletRequest request, HttpServletResponse response) throws IOException {
        // Before the body is read, as for a Messages call: the call holds a slot while its body arrives.
        BudgetDecision decision = budgets.reserveSlot(call.worker().userId());
        if (decision instanceof Denied denied) {
            budgets.record(call.record(TokenCounts.NONE, 0, CallOutcome.DENIED));
            GatewayError.denial(denied).writeTo(response, call.requestId());
            return;
        }
        Reservation slot = ((Reserved) decision).reservation();
        @Nullable CallOutcome outcome = null;
        try {
            outcome = forward(call, request, response);
        } finally {
            if (outcome == null) {
                // Thrown out of (the worker went away while sending its body, or a bug): nothing was used.
                outcome = call.beforeUpstream() == null ? CallOutcome.REJECTED : CallOutcome.UPSTREAM_ERROR;
            }
            // Frees the slot; the record is durable with the next settlement commit (nothing to wait for).
            budgets.settle(slot, call.record(TokenCounts.NONE, 0, outcome));
        }
    }

    private CallOutcome forward(GatewayCall call, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        RequestBody.Held held;
        try {
            held = bodies.read(request, call.worker().userId());
        } catch (GatewayError refused) {
            refused.writeTo(response, call.requestId());
            return CallOutcome.REJECTED;
        }
        try (held) {
            AnthropicUpstream target;
            try {
                MessagesRequestFacts parsed = MessagesRequestFacts.parse(held.bytes());
                call.priced(parsed.model(), prices.forModel(parsed.model()));
                target = forwarder.target();
            } catch (GatewayError refused) {
                refused.writeTo(response, call.requestId());
                return CallOutcome.REJECTED;
            }
            try {
                UpstreamResponse answer = forwarder.send(call, request, target, held.bytes(), response);
                held.close();
                try (InputStream upstream = answer.body();
                        StallWatchdog.Watched watched = watchdog.watch(upstream)) {
                    boolean delivered = BodyRelay.relay(upstream, new ClientOutput(response, call), null, watched);
                    return !answer.succeeded()
                            ? CallOutcome.UPSTREAM_ERROR
                            : delivered ? CallOutcome.COMPLETED : CallOutcome.CLIENT_CANCELLED;
                }
            } catch (GatewayError unreachable) {
                unreachable.writeTo(response, call.requestId());
                return CallOutcome.UPSTREAM_ERROR;
            }
        }
    }
}
