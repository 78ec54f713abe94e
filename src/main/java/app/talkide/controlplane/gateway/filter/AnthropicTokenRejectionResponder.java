package app.talkide.controlplane.gateway.filter;

import app.talkide.controlplane.gateway.AnthropicErrors;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerTokenRejectionResponder;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Answers a refused WorkerToken on the gateway's paths as the Anthropic API answers a bad key (401
 * {@code authentication_error}), so the SDK in the worker reports it as what it is.
 */
@Component
class AnthropicTokenRejectionResponder implements WorkerTokenRejectionResponder {

    @Override
    public boolean handles(HttpServletRequest request) {
        return GatewayPaths.isGateway(request);
    }

    @Override
    public void reject(HttpServletRequest request, HttpServletResponse response, RejectionReason reason)
            throws IOException {
        AnthropicErrors.write(
                response,
                401,
                "authentication_error",
                "Invalid X-Worker-Token (" + reason.code() + "): mint a fresh WorkerToken for this conversation.",
                "gw_" + UUID.randomUUID());
    }
}
