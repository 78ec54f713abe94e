package app.talkide.controlplane.token.security;

import app.talkide.controlplane.system.ProblemResponses;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerTokenRejectionResponder;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;

/** The default answer to a refused WorkerToken: a 401 problem detail naming the reason. */
final class ProblemRejectionResponder implements WorkerTokenRejectionResponder {

    static final ProblemRejectionResponder INSTANCE = new ProblemRejectionResponder();

    @Override
    public boolean handles(HttpServletRequest request) {
        return true;
    }

    @Override
    public void reject(HttpServletRequest request, HttpServletResponse response, RejectionReason reason)
            throws IOException {
        response.setHeader("WWW-Authenticate", "X-Worker-Token error=\"invalid_token\"");
        ProblemResponses.write(
                response,
                HttpStatus.UNAUTHORIZED,
                "invalid-worker-token",
                "Invalid worker token",
                "The X-Worker-Token header is missing or not acceptable (" + reason.code() + ").");
    }
}
