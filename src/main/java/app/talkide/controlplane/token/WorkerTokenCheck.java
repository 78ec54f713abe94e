package app.talkide.controlplane.token;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The {@code X-Worker-Token} check of every {@code /api/internal/**} request, for a path served outside
 * the internal security chain (the gateway's) as much as for the chain itself, so both refuse alike.
 */
public interface WorkerTokenCheck {

    String HEADER = "X-Worker-Token";

    /**
     * Verifies the request's WorkerToken and that its conversation, tenant-environment and owner still
     * match. A refusal is counted by reason; the caller answers it with a 401 after draining the request's
     * body or marking the connection to close ({@code UnreadBody.drainOrClose}).
     */
    WorkerTokenVerdict check(HttpServletRequest request);
}
