package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.gateway.AnthropicErrors;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** An answer the gateway makes itself, before any byte of the upstream's went out. */
final class GatewayError extends Exception {

    static final String DENIAL_REASON = "x-talkide-denial-reason";

    private final int status;
    private final String type;
    private final Map<String, String> headers;

    GatewayError(int status, String type, String message) {
        this(status, type, message, Map.of());
    }

    GatewayError(int status, String type, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.headers = headers;
    }

    /** 429 in Anthropic's shape, with the reason and the retry advice the SDK follows. */
    static GatewayError denial(Denied denied) {
        var headers = new LinkedHashMap<String, String>();
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

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    /** Writes this answer: its headers, then the Anthropic-shaped body carrying the call's request id. */
    void writeTo(HttpServletResponse response, String requestId) throws IOException {
        headers.forEach(response::setHeader);
        AnthropicErrors.write(response, status, type, getMessage(), requestId);
    }

    private static long ceilSeconds(Duration duration) {
        return duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
    }
}
