package app.talkide.controlplane.token.security;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenCheck;
import app.talkide.controlplane.token.WorkerTokenVerdict;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.VerifiedWorkerTokens;
import app.talkide.controlplane.token.worker.WorkerTokenRejected;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
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
    private final MeterRegistry meters;

    WorkerTokenAuthorizer(
            VerifiedWorkerTokens tokens,
            ConversationDirectory conversations,
            OwnerStanding ownerStanding,
            MeterRegistry meters) {
        this.tokens = tokens;
        this.conversations = conversations;
        this.ownerStanding = ownerStanding;
        this.meters = meters;
    }

    @Override
    public WorkerTokenVerdict check(HttpServletRequest request) {
        try {
            WorkerPrincipal principal = tokens.verify(request.getHeader(HEADER));
            checkScope(principal);
            return new WorkerTokenVerdict.Accepted(principal);
        } catch (WorkerTokenRejected rejected) {
            meters.counter(
                            "talkide.worker.token.rejections",
                            "reason",
                            rejected.reason().code())
                    .increment();
            return new WorkerTokenVerdict.Refused(rejected.reason());
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
}
