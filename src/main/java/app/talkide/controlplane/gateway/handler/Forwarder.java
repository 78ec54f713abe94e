package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import app.talkide.controlplane.gateway.filter.ForwardedRequestHeaders;
import app.talkide.controlplane.gateway.filter.ForwardedResponseHeaders;
import app.talkide.controlplane.gateway.upstream.UpstreamClient;
import app.talkide.controlplane.gateway.upstream.UpstreamFailure;
import app.talkide.controlplane.gateway.upstream.UpstreamResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;

/**
 * Sends a checked call upstream and prepares the worker's response: status and the passed headers,
 * plus {@code X-Accel-Buffering: no} on event streams so no proxy in between holds events back.
 */
@Component
class Forwarder {

    private final UpstreamClient client;
    private final ForwardedRequestHeaders requestHeaders;
    private final GatewayMetrics metrics;

    Forwarder(UpstreamClient client, GatewayProperties properties, GatewayMetrics metrics) {
        this.client = client;
        this.requestHeaders = new ForwardedRequestHeaders(properties.anthropicVersion());
        this.metrics = metrics;
    }

    AnthropicUpstream target() throws GatewayError {
        AnthropicUpstream target = client.upstream();
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
