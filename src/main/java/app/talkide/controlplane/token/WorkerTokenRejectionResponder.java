package app.talkide.controlplane.token;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Writes the 401 for a refused WorkerToken in the shape the caller understands. The default writes a
 * problem detail; a feature whose callers expect another shape (the Anthropic gateway) registers its
 * own for its paths.
 */
public interface WorkerTokenRejectionResponder {

    boolean handles(HttpServletRequest request);

    void reject(HttpServletRequest request, HttpServletResponse response, RejectionReason reason) throws IOException;
}
