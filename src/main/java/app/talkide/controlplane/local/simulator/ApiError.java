package app.talkide.controlplane.local.simulator;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * An answer in Anthropic's error shape: the HTTP status and the {@code error.type} that goes with it,
 * exactly as the real API pairs them.
 */
final class ApiError extends RuntimeException {

    private static final Map<Integer, String> TYPES = Map.ofEntries(
            Map.entry(400, "invalid_request_error"),
            Map.entry(401, "authentication_error"),
            Map.entry(402, "billing_error"),
            Map.entry(403, "permission_error"),
            Map.entry(404, "not_found_error"),
            Map.entry(405, "invalid_request_error"),
            Map.entry(413, "request_too_large"),
            Map.entry(429, "rate_limit_error"),
            Map.entry(500, "api_error"),
            Map.entry(504, "timeout_error"),
            Map.entry(529, "overloaded_error"));

    private final int status;

    ApiError(int status, String message) {
        // No stack trace: these are answers, not failures, and some are made on every bad request.
        super(message, null, false, false);
        if (!TYPES.containsKey(status)) {
            throw new IllegalArgumentException("No Anthropic error type for status " + status);
        }
        this.status = status;
    }

    static ApiError invalidRequest(String message) {
        return new ApiError(400, message);
    }

    static boolean knownStatus(int status) {
        return TYPES.containsKey(status);
    }

    /** The statuses the simulator can answer with, for messages that list them. */
    static String knownStatuses() {
        return TYPES.keySet().stream().sorted().map(String::valueOf).collect(Collectors.joining(", "));
    }

    int status() {
        return status;
    }

    String type() {
        return TYPES.get(status);
    }

    /** What the real API says in {@code x-should-retry}: retry overload, rate limits and server faults. */
    boolean shouldRetry() {
        return status == 429 || status >= 500;
    }
}
