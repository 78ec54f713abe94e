package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Features the upstream bills beyond the gateway's price list. Until they are priced, a call asking for
 * one is refused with a clear error rather than let past the budget: the 1M-token context beta (a premium
 * rate above 200K input tokens) here, server tools in {@link MessagesRequestFacts}.
 */
final class UnpricedFeatures {

    private static final String LONG_CONTEXT_BETA = "context-1m";

    private UnpricedFeatures() {}

    /** Whether the call asks for the 1M-token context beta ({@code anthropic-beta: context-1m-*}). */
    static boolean asksForLongContext(HttpServletRequest request) {
        for (var values = request.getHeaders("anthropic-beta"); values.hasMoreElements(); ) {
            if (values.nextElement().contains(LONG_CONTEXT_BETA)) {
                return true;
            }
        }
        return false;
    }

    static GatewayError longContextRefused() {
        return new GatewayError(
                400,
                "invalid_request_error",
                "anthropic-beta: the 1M-token context beta is billed at premium rates above 200K input tokens,"
                        + " which this gateway does not price yet, so it is not available.");
    }
}
