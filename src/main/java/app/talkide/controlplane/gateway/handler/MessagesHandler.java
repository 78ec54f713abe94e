package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.BudgetDecision;
import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.gateway.AnthropicErrors;
import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import app.talkide.controlplane.gateway.metering.JsonUsageScanner;
import app.talkide.controlplane.gateway.metering.StreamMeter;
import app.talkide.controlplane.gateway.pricing.ModelPrice;
import app.talkide.controlplane.gateway.pricing.PriceList;
import app.talkide.controlplane.gateway.upstream.UpstreamResponse;
import app.talkide.controlplane.observability.Traces;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@code POST /v1/messages}: check the body, reserve budget, forward, relay while metering, settle.
 * Settlement runs whatever happens after the reservation, so no call leaves money held; if even that
 * fails (the database is gone), the reservation expires on its own. A call the worker will see complete
 * is settled durably before its final bytes go out ({@link CallSettlement}).
 */
@Component
class MessagesHandler {

    private final GatewayProperties properties;
    private final RequestBody bodies;
    private final Forwarder forwarder;
    private final PriceList prices;
    private final UserBudgetService budgets;
    private final GatewayMetrics metrics;
    private final StallWatchdog watchdog;
    private final Traces traces;

    MessagesHandler(
            GatewayProperties properties,
            RequestBody bodies,
            Forwarder forwarder,
            PriceList prices,
            UserBudgetService budgets,
            GatewayMetrics metrics,
            StallWatchdog watchdog,
            Traces traces) {
        this.properties = properties;
        this.bodies = bodies;
        this.forwarder = forwarder;
        this.prices = prices;
        this.budgets = budgets;
        this.metrics = metrics;
        this.watchdog = watchdog;
        this.traces = traces;
    }

    void handle(GatewayCall call, HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (UnpricedFeatures.asksForLongContext(request)) {
            UnpricedFeatures.longContextRefused().writeTo(response, call.requestId());
            return;
        }
        Reservation reservation = admit(call, response);
        if (reservation == null) {
            return;
        }
        CallSettlement settlement = new CallSettlement(budgets, metrics, reservation, call);
        @Nullable CallUsage usage = null;
        try {
            usage = handle(call, request, response, settlement);
        } finally {
            if (usage == null) {
                // Thrown out of (the worker went away while sending its body, or a bug): nothing was used.
                usage = CallUsage.free(
                        call.beforeUpstream() == null ? CallOutcome.REJECTED : CallOutcome.UPSTREAM_ERROR);
            }
            // Every path ends here: the slot and all reserved go back (queued, not waited for; no-op if settled).
            settlement.settle(usage.outcome(), usage.tokens());
        }
    }

    /**
     * Before the body is read: takes one of the user's concurrent slots (and a request of their minute), so
     * a user who may not call now never makes the gateway hold a large body, and slow uploads of one user
     * stop at their concurrency limit. Null if refused (answered).
     */
    private @Nullable Reservation admit(GatewayCall call, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        BudgetDecision admitted = budgets.reserveSlot(call.worker().userId());
        call.budgetChecked(System.nanoTime() - start);
        if (admitted instanceof Denied denied) {
            budgets.record(call.record(TokenCounts.NONE, 0, CallOutcome.DENIED));
            GatewayError.denial(denied).writeTo(response, call.requestId());
            return null;
        }
        return ((Reserved) admitted).reservation();
    }

    /** Reads, checks and reserves for the body, then forwards; returns what to settle. */
    private CallUsage handle(
            GatewayCall call, HttpServletRequest request, HttpServletResponse response, CallSettlement settlement)
            throws IOException {
        RequestBody.Held held;
        try {
            held = bodies.read(request, call.worker().userId());
        } catch (GatewayError refused) {
            refused.writeTo(response, call.requestId());
            return CallUsage.free(CallOutcome.REJECTED);
        }
        try (held) {
            MessagesRequestFacts parsed;
            AnthropicUpstream target;
            try {
                parsed = MessagesRequestFacts.parse(held.bytes());
                target = forwarder.target();
            } catch (GatewayError refused) {
                refused.writeTo(response, call.requestId());
                return CallUsage.free(CallOutcome.REJECTED);
            }
            ModelPrice price = prices.forModel(parsed.model());
            call.priced(parsed.model(), price);

            call.reservesOutput(parsed.firstOutputTokens(properties.outputSliceTokens()));
            long estimate = price.cost(parsed.estimatedInputTokens(), call.reservedOutput());
            long budgetStart = System.nanoTime();
            Optional<Denied> refused = budgets.reserveEstimate(settlement.reservation(), estimate);
            call.budgetChecked(System.nanoTime() - budgetStart);
            if (refused.isPresent()) {
                GatewayError.denial(refused.get()).writeTo(response, call.requestId());
                return CallUsage.free(CallOutcome.DENIED);
            }
            CallUsage usage;
            // The upstream exchange, from sending the request to the answer's last byte: a child span if recorded.
            try (Traces.SpanScope upstream = traces.child("anthropic " + call.endpoint())) {
                upstream.tag("gen_ai.request.model", parsed.model());
                usage = forward(call, request, response, target, held, settlement);
                Integer status = call.upstreamStatus();
                upstream.tag("http.response.status_code", status == null ? "none" : status.toString());
                upstream.tag("talkide.gateway.outcome", usage.outcome().code());
            }
            finish(response);
            return usage;
        }
    }

    /** Ends the response: the worker has every byte (a completed call's usage is durable by now). */
    private static void finish(HttpServletResponse response) {
        try {
            response.getOutputStream().close();
        } catch (IOException | IllegalStateException gone) {
            // Nobody is listening any more; settlement goes on regardless.
        }
    }

    private CallUsage forward(
            GatewayCall call,
            HttpServletRequest request,
            HttpServletResponse response,
            AnthropicUpstream target,
            RequestBody.Held body,
            CallSettlement settlement)
            throws IOException {
        UpstreamResponse answer;
        try {
            answer = forwarder.send(call, request, target, body.bytes(), response);
        } catch (GatewayError unreachable) {
            unreachable.writeTo(response, call.requestId());
            return CallUsage.free(CallOutcome.UPSTREAM_ERROR);
        } finally {
            // The upstream has the whole body once it answers (or it never will): a long stream holds none of it.
            body.close();
        }
        ClientOutput client = new ClientOutput(response, call);
        try (InputStream upstream = answer.body()) {
            if (!answer.succeeded()) {
                // The upstream's own error (400, 401, 429, 529 ...) goes to the worker as it is; nothing is billed.
                try (StallWatchdog.Watched watched = watchdog.watch(upstream)) {
                    BodyRelay.relay(upstream, client, null, watched);
                }
                return CallUsage.free(CallOutcome.UPSTREAM_ERROR);
            }
            if (!answer.isEventStream()) {
                JsonUsageScanner scanner = new JsonUsageScanner();
                boolean delivered;
                try (StallWatchdog.Watched watched = watchdog.watch(upstream)) {
                    delivered = BodyRelay.relay(
                            upstream,
                            client,
                            scanner,
                            watched,
                            () -> settlement.settleDurably(CallOutcome.COMPLETED, scanner.counts()));
                }
                return new CallUsage(
                        delivered ? CallOutcome.COMPLETED : CallOutcome.CLIENT_CANCELLED, scanner.counts());
            }
            return stream(call, client, upstream, settlement);
        } catch (ClientGone gone) {
            return CallUsage.free(CallOutcome.CLIENT_CANCELLED);
        } catch (IOException broken) {
            return CallUsage.free(CallOutcome.UPSTREAM_ERROR);
        }
    }

    private CallUsage stream(GatewayCall call, ClientOutput client, InputStream upstream, CallSettlement settlement)
            throws IOException {
        StreamMeter meter = new StreamMeter();
        OutputAllowance allowance = new OutputAllowance(
                budgets, settlement.reservation(), call.price(), properties.outputSliceTokens(), call.reservedOutput());
        metrics.streamOpened();
        try (StallWatchdog.Watched watched = watchdog.watch(upstream)) {
            // message_stop goes out only once the call's usage is durable.
            StreamRelay.FinalBytes beforeStop = () -> settlement.settleDurably(
                    meter.errorType() == null ? CallOutcome.COMPLETED : CallOutcome.UPSTREAM_ERROR,
                    allowance.billed(meter));
            StreamRelay.End end = new StreamRelay(client, meter, allowance, watched, beforeStop).relay(upstream);
            watched.finished();
            return switch (end) {
                case COMPLETED -> {
                    if (!meter.stopped()) {
                        // No message_stop (an error event ended it): its end is the final bytes, durable first.
                        settlement.settleDurably(CallOutcome.UPSTREAM_ERROR, allowance.billed(meter));
                    }
                    yield new CallUsage(
                            meter.stopped() && meter.errorType() == null
                                    ? CallOutcome.COMPLETED
                                    : CallOutcome.UPSTREAM_ERROR,
                            allowance.billed(meter));
                }
                case CLIENT_GONE -> {
                    // The worker is gone: close the upstream now so it stops generating (and billing) tokens
                    // nobody will read. Bill what was produced until here.
                    upstream.close();
                    yield new CallUsage(CallOutcome.CLIENT_CANCELLED, allowance.billed(meter));
                }
                case LIMIT_REACHED -> {
                    upstream.close();
                    settlement.settleDurably(CallOutcome.LIMIT_REACHED, allowance.billed(meter));
                    endWith(
                            client,
                            "rate_limit_error",
                            "Spending limit reached: this answer was stopped because your"
                                    + " spending limit for this period does not cover more output.");
                    yield new CallUsage(CallOutcome.LIMIT_REACHED, allowance.billed(meter));
                }
                case BUDGET_UNAVAILABLE -> {
                    upstream.close();
                    settlement.settleDurably(CallOutcome.UPSTREAM_ERROR, allowance.billed(meter));
                    endWith(
                            client,
                            "api_error",
                            "The gateway could not extend this answer's budget reservation, so the answer was"
                                    + " stopped; try again shortly.");
                    yield new CallUsage(CallOutcome.UPSTREAM_ERROR, allowance.billed(meter));
                }
                case SETTLEMENT_FAILED -> {
                    upstream.close();
                    endWith(
                            client,
                            "api_error",
                            "The gateway could not record this answer's usage, so it was not completed; try again.");
                    yield new CallUsage(CallOutcome.UPSTREAM_ERROR, allowance.billed(meter));
                }
                case UPSTREAM_BROKEN -> {
                    settlement.settleDurably(CallOutcome.UPSTREAM_ERROR, allowance.billed(meter));
                    endWith(
                            client,
                            "api_error",
                            watched.stalled()
                                    ? "The Anthropic API sent nothing for " + watched.idleTimeout()
                                            + "; the stream was ended."
                                    : "The connection to the Anthropic API broke mid-stream.");
                    yield new CallUsage(CallOutcome.UPSTREAM_ERROR, allowance.billed(meter));
                }
            };
        } finally {
            metrics.streamClosed();
        }
    }

    /** Ends a stream that already started with an Anthropic {@code error} event, so the SDK reports why. */
    private static void endWith(ClientOutput client, String type, String message) {
        byte[] event = AnthropicErrors.event(type, message);
        try {
            client.send(event, 0, event.length);
        } catch (ClientGone gone) {
            // Nobody left to tell.
        }
    }
}
