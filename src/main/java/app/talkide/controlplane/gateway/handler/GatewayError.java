package app.talkide.controlplane.gateway.handler;

import java.util.Map;

/** An answer the gateway makes itself, before any byte of the upstream's went out. */
final class GatewayError extends Exception {

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

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    Map<String, String> headers() {
        return headers;
    }
}
