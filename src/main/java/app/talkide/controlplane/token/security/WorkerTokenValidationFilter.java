package app.talkide.controlplane.token.security;

import app.talkide.controlplane.observability.LogContext;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenCheck;
import app.talkide.controlplane.token.WorkerTokenVerdict;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Verifies {@code X-Worker-Token} on every {@code /api/internal/**} request that the internal security
 * chain serves ({@link WorkerTokenCheck}) and puts the {@link WorkerPrincipal} into the security context.
 */
final class WorkerTokenValidationFilter extends OncePerRequestFilter {

    private final WorkerTokenCheck check;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    WorkerTokenValidationFilter(WorkerTokenCheck check) {
        this.check = check;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        WorkerPrincipal principal;
        switch (check.check(request)) {
            case WorkerTokenVerdict.Accepted accepted -> principal = accepted.principal();
            case WorkerTokenVerdict.Refused refused -> {
                ProblemRejectionResponder.reject(request, response, refused.reason());
                return;
            }
        }
        SecurityContext context = contexts.createEmptyContext();
        context.setAuthentication(new WorkerTokenAuthentication(principal));
        contexts.setContext(context);
        try (LogContext ids = LogContext.of(
                principal.tenantEnvironment().tenant(),
                principal.tenantEnvironment().env(),
                principal.conversationId(),
                principal.userId())) {
            chain.doFilter(request, response);
        } finally {
            contexts.clearContext();
        }
    }
}
