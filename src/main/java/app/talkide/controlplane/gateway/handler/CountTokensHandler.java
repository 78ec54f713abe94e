package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.UserBudgetService;
import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.pricing.PriceList;
import app.talkide.controlplane.gateway.upstream.UpstreamResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import org.springframework.stereotype.Component;

/** {@code POST /v1/messages/count_tokens}: forwarded and recorded, but free, so no budget is reserved. */
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
        RequestBody.Held body;
        try {
            body = bodies.read(request);
        } catch (GatewayError refused) {
            refused.writeTo(response, call.requestId());
            return;
        }
        try (body) {
            handle(call, request, response, body);
        }
    }

    private void handle(
            GatewayCall call, HttpServletRequest request, HttpServletResponse response, RequestBody.Held held)
            throws IOException {
        byte[] body = held.bytes();
        AnthropicUpstream target;
        try {
            MessagesRequestFacts parsed = MessagesRequestFacts.parse(body);
            call.priced(parsed.model(), prices.forModel(parsed.model()));
            target = forwarder.target();
        } catch (GatewayError refused) {
            refused.writeTo(response, call.requestId());
            return;
        }
        CallOutcome outcome = CallOutcome.UPSTREAM_ERROR;
        try {
            UpstreamResponse answer = forwarder.send(call, request, target, body, response);
            held.close();
            try (InputStream upstream = answer.body();
                    StallWatchdog.Watched watched = watchdog.watch(upstream)) {
                boolean delivered = BodyRelay.relay(upstream, new ClientOutput(response, call), null, watched);
                outcome = !answer.succeeded()
                        ? CallOutcome.UPSTREAM_ERROR
                        : delivered ? CallOutcome.COMPLETED : CallOutcome.CLIENT_CANCELLED;
            }
        } catch (GatewayError unreachable) {
            unreachable.writeTo(response, call.requestId());
        } finally {
            budgets.record(call.record(TokenCounts.NONE, 0, outcome));
        }
    }
}
