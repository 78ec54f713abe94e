package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.gateway.AnthropicErrors;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The gateway's own answers, written before any upstream byte went out. */
final class Responses {

    static final String DENIAL_REASON = "x-talkide-denial-reason";

    private Responses() {}

    static void error(HttpServletResponse response, GatewayCall call, GatewayError error) throws IOException {
        error.headers().forEach(response::setHeader);
        AnthropicErrors.write(response, error.status(), error.type(), error.getMessage(), call.requestId());
    }

    /** 429 in Anthropic's shape, with the reason and the retry advice the SDK follows. */
    static GatewayError denial(Denied denied) {
        var headers = new java.util.LinkedHashMap<String, String>();
        headers.put(DENIAL_REASON, denied.reason().code());
        if (denied.retryAfter() != null) {
            headers.put("retry-after", Long.toString(Math.max(1, ceilSeconds(denied.retryAfter()))));
        }
        if (!denied.retryable()) {
            // The official SDKs honour this and do not retry a limit that is spent for the period.
            headers.put("x-should-retry", "false");
        }
        return new GatewayError(429, "rate_limit_error", denied.message(), headers);
    }

    private static long ceilSeconds(java.time.Duration duration) {
        return duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
    }
}
