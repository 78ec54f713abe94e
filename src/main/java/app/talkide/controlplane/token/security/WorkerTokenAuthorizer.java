package app.talkide.controlplane.token.security;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.system.UnreadBody;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenCheck;
import app.talkide.controlplane.token.WorkerTokenRejectionResponder;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.VerifiedWorkerTokens;
import app.talkide.controlplane.token.worker.WorkerTokenRejected;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Checks a request's WorkerToken: the signature and claims (remembered per token until it expires), then
 * on every call that the conversation still exists and still belongs to the token's tenant-environment and
 * user, that the user is still a member and the tenant-environment is not being deleted. The token itself
 * is never logged or echoed.
 */
@Component
class WorkerTokenAuthorizer implements WorkerTokenCheck {

    private final VerifiedWorkerTokens tokens;
    private final ConversationDirectory conversations;
    private final OwnerStanding ownerStanding;
    private final List<WorkerTokenRejectionResponder> responders;
    private final MeterRegistry meters;

    WorkerTokenAuthorizer(
            VerifiedWorkerTokens tokens,
            ConversationDirectory conversations,
            OwnerStanding ownerStanding,
            ObjectProvider<WorkerTokenRejectionResponder> responders,
            MeterRegistry meters) {
        this.tokens = tokens;
        this.conversations = conversations;
        this.ownerStanding = ownerStanding;
        this.responders = responders.orderedStream().toList();
        this.meters = meters;
    }

    @Override
    public @Nullable WorkerPrincipal authorize(HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        try {
            WorkerPrincipal principal = tokens.verify(request.getHeader(HEADER));
            checkScope(principal);
            return principal;
        } catch (WorkerTokenRejected rejected) {
            reject(request, response, rejected.reason());
            return null;
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
