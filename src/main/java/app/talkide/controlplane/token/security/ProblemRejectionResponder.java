package app.talkide.controlplane.token.security;

import app.talkide.controlplane.system.ProblemResponses;
import app.talkide.controlplane.system.UnreadBody;
import app.talkide.controlplane.token.RejectionReason;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;

/** The internal API's answer to a refused WorkerToken: a 401 problem detail naming the reason. */
final class ProblemRejectionResponder {

    private ProblemRejectionResponder() {}

    static void reject(HttpServletRequest request, HttpServletResponse response, RejectionReason reason)
            throws IOException {
        UnreadBody.drainOrClose(request, response);
        response.setHeader("WWW-Authenticate", "X-Worker-Token error=\"invalid_token\"");
        ProblemResponses.write(
                response,
                HttpStatus.UNAUTHORIZED,
                "invalid-worker-token",
                "Invalid worker token",
                "The X-Worker-Token header is missing or not acceptable (" + reason.code() + ").");
    }
}
