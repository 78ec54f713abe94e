package app.talkide.controlplane.token.security;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.observability.LogContext;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenRejectionResponder;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.WorkerTokenRejected;
import app.talkide.controlplane.token.worker.WorkerTokenVerifier;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Verifies {@code X-Worker-Token} on every {@code /api/internal/**} request and puts the
 * {@link WorkerPrincipal} into the security context. Beyond the signature and claims it checks that the
 * conversation still exists and still belongs to the token's tenant-environment and user, that the user
 * is still a member and the tenant-environment is not being deleted. A refusal is
 * counted by reason and answered by the first responder that handles the path; the token itself is never
 * logged or echoed.
 */
public final class WorkerTokenValidationFilter extends OncePerRequestFilter {

    public static final String HEADER = "X-Worker-Token";

    private final WorkerTokenVerifier verifier;
    private final ConversationDirectory conversations;
    private final OwnerStanding ownerStanding;
    private final List<WorkerTokenRejectionResponder> responders;
    private final MeterRegistry meters;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    WorkerTokenValidationFilter(
            WorkerTokenVerifier verifier,
            ConversationDirectory conversations,
            OwnerStanding ownerStanding,
            List<WorkerTokenRejectionResponder> responders,
            MeterRegistry meters) {
        this.verifier = verifier;
        this.conversations = conversations;
        this.ownerStanding = ownerStanding;
        this.responders = responders;
        this.meters = meters;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        WorkerPrincipal principal;
        try {
            principal = verifier.verify(request.getHeader(HEADER));
            checkScope(principal);
        } catch (WorkerTokenRejected rejected) {
            reject(request, response, rejected.reason());
            return;
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

    private void checkScope(WorkerPrincipal principal) throws WorkerTokenRejected {
        boolean matches = conversations
                .scopeOf(principal.conversationId())
                .filter(scope -> scope.tenantEnvironment().equals(principal.tenantEnvironment()))
                .filter(scope -> scope.ownerUserId().equals(principal.userId()))
                .filter(ownerStanding::workerMayActFor)
                .isPresent();
        if (!matches) {
            throw new WorkerTokenRejected(RejectionReason.WRONG_SCOPE);
        }
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, RejectionReason reason)
            throws IOException {
        meters.counter("talkide.worker.token.rejections", "reason", reason.code())
                .increment();
        UnreadBody.drainOrClose(request, response);
        for (WorkerTokenRejectionResponder responder : responders) {
            if (responder.handles(request)) {
                responder.reject(request, response, reason);
                return;
            }
        }
        ProblemRejectionResponder.INSTANCE.reject(request, response, reason);
    }
}
