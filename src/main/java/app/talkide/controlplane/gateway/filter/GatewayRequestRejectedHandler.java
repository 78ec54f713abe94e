package app.talkide.controlplane.gateway.filter;

import app.talkide.controlplane.gateway.AnthropicErrors;
import app.talkide.controlplane.gateway.handler.GatewayPaths;
import app.talkide.controlplane.system.UnreadBody;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.stereotype.Component;

/**
 * Spring Security's firewall refuses encoded slashes, dot segments and semicolons before any chain
 * runs. Under the gateway's prefix such a path names nothing the gateway serves, so it is answered like
 * any other unknown gateway path: 404 in Anthropic's shape. Everywhere else the usual 400 stands.
 */
@Component
class GatewayRequestRejectedHandler implements RequestRejectedHandler {

    private final RequestRejectedHandler elsewhere =
            new HttpStatusRequestRejectedHandler(HttpStatus.BAD_REQUEST.value());

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, RequestRejectedException rejected)
            throws IOException, ServletException {
        if (GatewayPaths.isGateway(request)) {
            UnreadBody.drainOrClose(request, response);
            AnthropicErrors.notFound(response);
        } else {
            elsewhere.handle(request, response, rejected);
        }
    }
}
