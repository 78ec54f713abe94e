package app.talkide.controlplane.system;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.web.access.AccessDeniedHandler;

/** 403 as a problem detail: signed in, but this needs a role (or a CSRF token) the caller lacks. */
class ProblemAccessDeniedHandler implements AccessDeniedHandler {

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException denied)
            throws IOException {
        UnreadBody.drainOrClose(request, response); // the caller's connection stays usable
        ProblemResponses.write(
                response, HttpStatus.FORBIDDEN, "forbidden", "Forbidden", "You are not allowed to do this.");
    }
}
