package app.talkide.controlplane.gateway.filter;

import app.talkide.controlplane.gateway.handler.GatewayPaths;
import app.talkide.controlplane.gateway.handler.GatewayRouter;
import app.talkide.controlplane.observability.LogContext;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenCheck;
import app.talkide.controlplane.token.WorkerTokenVerdict;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * Serves everything under {@link GatewayPaths#PREFIX} and ends the request there, so a gateway call
 * passes neither Spring Security's filter chain nor Spring MVC (a fifth of its CPU under load). What they
 * did for it is done here, in their order: the firewall Spring Security puts before every chain (same
 * rules, its header rules without regular expressions ({@link FirewallHeaderRules}), same handler for what
 * it refuses), the internal chain's WorkerToken check ({@link
 * WorkerTokenCheck}, shared with that chain), then the route. The server observation around it (span,
 * {@code http.server.requests}) still comes from Spring's filter before this one.
 */
final class GatewayEndpoint implements Filter {

    /** The route the server span and metric name, as Spring MVC named it for the gateway's mapping. */
    static final String ROUTE = GatewayPaths.PREFIX + "/**";

    private final HttpFirewall firewall = FirewallHeaderRules.firewall();
    private final RequestRejectedHandler rejected;
    private final WorkerTokenCheck tokens;
    private final GatewayRouter router;

    GatewayEndpoint(RequestRejectedHandler rejected, WorkerTokenCheck tokens, GatewayRouter router) {
        this.rejected = rejected;
        this.tokens = tokens;
        this.router = router;
    }

    @Override
    public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) servletRequest;
        HttpServletResponse response = (HttpServletResponse) servletResponse;
        long arrivedNanos = arrivedNanos(request);
        // The one header of the security chain's set that still means something for JSON answers.
        response.setHeader("X-Content-Type-Options", "nosniff");
        HttpServletRequest checked;
        WorkerTokenVerdict verdict;
        try {
            checked = firewall.getFirewalledRequest(request);
            // The firewalled request refuses a bad header when it is read: read them all here, where a
            // refusal is answered as the firewall's, not later by the handler as a 500.
            readEveryHeader(checked);
            verdict = tokens.check(checked);
        } catch (RequestRejectedException refused) {
            rejected.handle(request, response, refused);
            return;
        }
        WorkerPrincipal worker;
        switch (verdict) {
            case WorkerTokenVerdict.Accepted accepted -> worker = accepted.principal();
            case WorkerTokenVerdict.Refused refused -> {
                WorkerTokenRefusal.write(checked, response, refused.reason());
                return;
            }
        }
        ServerHttpObservationFilter.findObservationContext(request).ifPresent(context -> context.setPathPattern(ROUTE));
        try (LogContext ids = LogContext.of(
                worker.tenantEnvironment().tenant(),
                worker.tenantEnvironment().env(),
                worker.conversationId(),
                worker.userId())) {
            router.route(worker, checked, response, arrivedNanos);
        }
    }

    private static void readEveryHeader(HttpServletRequest checked) {
        for (var names = checked.getHeaderNames(); names.hasMoreElements(); ) {
            for (var values = checked.getHeaders(names.nextElement()); values.hasMoreElements(); ) {
                values.nextElement();
            }
        }
    }

    /** When Jetty had the request's headers: the time before the router is part of what the worker waits. */
    private static long arrivedNanos(HttpServletRequest request) {
        try {
            return ServletContextRequest.getServletContextRequest(request).getHeadersNanoTime();
        } catch (IllegalStateException | NullPointerException notJetty) {
            return 0; // another container or a mock request: the phase is unknown, not a reason to fail the call
        }
    }
}
