package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletResponse;
import java.net.http.HttpHeaders;
import java.util.Locale;
import java.util.Set;

/**
 * Decides which upstream response headers reach the worker: what the SDK needs (content type, request
 * id, rate-limit state, retry advice) and nothing about our account or the upstream's infrastructure.
 */
final class ForwardedResponseHeaders {

    static final Set<String> PASSED = Set.of("content-type", "request-id", "retry-after", "x-should-retry");
    static final String RATE_LIMIT_PREFIX = "anthropic-ratelimit-";

    private ForwardedResponseHeaders() {}

    static void copy(HttpHeaders from, HttpServletResponse to) {
        from.map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (PASSED.contains(lower) || lower.startsWith(RATE_LIMIT_PREFIX)) {
                values.forEach(value -> to.addHeader(lower, value));
            }
        });
    }
}
