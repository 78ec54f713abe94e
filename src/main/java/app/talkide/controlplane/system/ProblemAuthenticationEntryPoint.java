package app.talkide.controlplane.system;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;

/** 401 as a problem detail, without a Basic challenge so browsers never pop up a password dialog. */
class ProblemAuthenticationEntryPoint implements AuthenticationEntryPoint {

    @Override
    public void commence(
            HttpServletRequest request, HttpServletResponse response, AuthenticationException authException)
            throws IOException {
        UnreadBody.drainOrClose(request, response); // the caller's connection stays usable
        ProblemResponses.write(
                response, HttpStatus.UNAUTHORIZED, "unauthenticated", "Unauthenticated", "Sign in to use this API.");
    }
}
