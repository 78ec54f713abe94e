package app.talkide.controlplane.token;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The {@code X-Worker-Token} check of every {@code /api/internal/**} request, for a path served outside
 * the internal security chain (the gateway's) as much as for the chain itself, so both refuse alike.
 */
public interface WorkerTokenCheck {

    String HEADER = "X-Worker-Token";

    /**
     * The caller, when the request's WorkerToken verifies and its conversation, tenant-environment and
     * owner still match; otherwise null, once the 401 is written (counted by reason, the body drained or
     * the connection marked to close, in the shape of the first responder for the path).
     */
    @Nullable
    WorkerPrincipal authorize(HttpServletRequest request, HttpServletResponse response) throws IOException;
}
