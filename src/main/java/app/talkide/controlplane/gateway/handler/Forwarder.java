package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import app.talkide.controlplane.gateway.upstream.UpstreamClient;
import app.talkide.controlplane.gateway.upstream.UpstreamFailure;
import app.talkide.controlplane.gateway.upstream.UpstreamResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.util.function.SingletonSupplier;

/**
 * Sends a checked call upstream and prepares the worker's response: status and the passed headers,
 * plus {@code X-Accel-Buffering: no} on event streams so no proxy in between holds events back.
 */
@Component
class Forwarder {

    private final UpstreamClient client;
    // Resolved on first use, then kept: which upstream exists is settled at startup, and a bean
    // factory look-up on every call was about 2 % of the gateway's CPU in its profile.
    private final Supplier<@Nullable AnthropicUpstream> upstream;
    private final ForwardedRequestHeaders requestHeaders;
    private final GatewayMetrics metrics;

    Forwarder(
            UpstreamClient client,
            ObjectProvider<AnthropicUpstream> upstream,
            GatewayProperties properties,
            GatewayMetrics metrics) {
        this.client = client;
        this.upstream = SingletonSupplier.of(upstream::getIfAvailable);
        this.requestHeaders = new ForwardedRequestHeaders(properties.anthropicVersion());
        this.metrics = metrics;
    }

    AnthropicUpstream target() throws GatewayError {
        AnthropicUpstream target = upstream.get();
        if (target == null) {
            throw new GatewayError(502, "api_error", "No Anthropic upstream is configured on the control plane.");
        }
        return target;
    }

    /** Calls the upstream and, once it answered, writes status and headers (not yet committed). */
    UpstreamResponse send(
            GatewayCall call,
            HttpServletRequest request,
            AnthropicUpstream target,
            byte[] body,
            HttpServletResponse response)
            throws GatewayError {
        call.upstreamSent();
        UpstreamResponse answer;
        try {
            answer = client.post(
                    target,
                    call.path().upstreamPath(),
                    request.getQueryString(),
                    builder -> requestHeaders.copy(request, builder),
                    body);
        } catch (UpstreamFailure failure) {
            throw failure.timedOut()
                    ? new GatewayError(504, "api_error", "The Anthropic API did not answer in time.")
                    : new GatewayError(502, "api_error", "The Anthropic API could not be reached.");
        }
        call.upstreamAnswered(answer.statusCode());
        metrics.upstreamStatus(answer.statusCode());
        response.setStatus(answer.statusCode());
        ForwardedResponseHeaders.copy(answer.headers(), response);
        if (answer.isEventStream()) {
            response.setHeader("X-Accel-Buffering", "no");
            response.setHeader("Cache-Control", "no-cache");
        }
        return answer;
    }
}
