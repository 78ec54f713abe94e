package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The only two calls the gateway forwards. Matched against the raw request URI, exactly: an encoded,
 * dot-segment, matrix-parameter or trailing-slash variant is a different path and gets a 404, so no
 * spelling of a path can reach anything upstream but these two.
 */
public enum GatewayPaths {
    MESSAGES("/v1/messages", "messages"),
    COUNT_TOKENS("/v1/messages/count_tokens", "count_tokens");

    public static final String PREFIX = "/api/internal/gateway/anthropic";

    private final String upstreamPath;
    private final String gatewayPath;
    private final String endpoint;

    GatewayPaths(String upstreamPath, String endpoint) {
        this.upstreamPath = upstreamPath;
        this.gatewayPath = PREFIX + upstreamPath;
        this.endpoint = endpoint;
    }

    /** The path on the upstream, e.g. {@code /v1/messages}. */
    String upstreamPath() {
        return upstreamPath;
    }

    /** The short name used in usage records and metric tags. */
    String endpoint() {
        return endpoint;
    }

    static @Nullable GatewayPaths match(HttpServletRequest request) {
        if (!"POST".equals(request.getMethod())) {
            return null;
        }
        String uri = request.getRequestURI();
        for (GatewayPaths path : values()) {
            if (uri.equals(path.gatewayPath)) {
                return path;
            }
        }
        return null;
    }

    /** Whether a request is for the gateway at all (any method, any spelling under its prefix). */
    public static boolean isGateway(HttpServletRequest request) {
        return request.getRequestURI().startsWith(PREFIX);
    }
}
