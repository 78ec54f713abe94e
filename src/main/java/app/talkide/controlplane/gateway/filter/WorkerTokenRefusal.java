package app.talkide.controlplane.gateway.filter;

import app.talkide.controlplane.gateway.AnthropicErrors;
import app.talkide.controlplane.system.UnreadBody;
import app.talkide.controlplane.token.RejectionReason;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;

/**
 * Answers a refused WorkerToken as the Anthropic API answers a bad key (401 {@code authentication_error}),
 * so the SDK in the worker reports it as what it is.
 */
final class WorkerTokenRefusal {

    private WorkerTokenRefusal() {}

    static void write(HttpServletRequest request, HttpServletResponse response, RejectionReason reason)
            throws IOException {
        UnreadBody.drainOrClose(request, response);
        AnthropicErrors.write(
                response,
                401,
                "authentication_error",
                "Invalid X-Worker-Token (" + reason.code() + "): mint a fresh WorkerToken for this conversation.",
                "gw_" + UUID.randomUUID());
    }
}
