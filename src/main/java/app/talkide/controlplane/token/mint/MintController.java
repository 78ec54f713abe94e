package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.token.identity.VerifiedIdentity;
import app.talkide.controlplane.token.worker.IssuedWorkerToken;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.validation.Valid;
import java.time.Clock;
import java.util.UUID;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The mint endpoint. A worker presents its identity token and names a conversation of its own
 * tenant-environment; it gets a WorkerToken for that conversation, valid for two minutes.
 */
@RestController
class MintController {

    private final ConversationDirectory conversations;
    private final WorkerTokenIssuer issuer;
    private final OwnerStanding ownerStanding;
    private final MintRateLimiter rateLimiter;
    private final MeterRegistry meters;
    private final Clock clock;

    MintController(
            ConversationDirectory conversations,
            WorkerTokenIssuer issuer,
            OwnerStanding ownerStanding,
            MintRateLimiter rateLimiter,
            MeterRegistry meters,
            Clock clock) {
        this.conversations = conversations;
        this.issuer = issuer;
        this.ownerStanding = ownerStanding;
        this.rateLimiter = rateLimiter;
        this.meters = meters;
        this.clock = clock;
    }

    @PostMapping("/api/v1/worker-gateway/token/mint")
    MintResponse mint(VerifiedIdentity identity, @Valid @RequestBody MintRequest request) {
        // identity first: MintCallerResolver authenticates before the body is read (401 before 400).
        rateLimiter.tryAcquire(identity.tokenId()).ifPresent(retryAfter -> {
            throw counted("rate_limited", new MintRateExceeded(retryAfter));
        });
        ConversationScope scope = conversations
                .scopeOf(UUID.fromString(request.conversationId()))
                .filter(found -> found.tenantEnvironment().equals(identity.tenantEnvironment()))
                // Same answer as for another tenant's conversation: the worker learns nothing about the owner.
                .filter(ownerStanding::workerMayActFor)
                .orElseThrow(() -> counted("forbidden", new ConversationOutOfScope()));
        IssuedWorkerToken token = issuer.issue(scope);
        meters.counter("talkide.worker.token.mints", "outcome", "issued").increment();
        long expiresIn =
                Math.max(0, token.expiresAt().getEpochSecond() - clock.instant().getEpochSecond());
        return new MintResponse(token.token(), token.expiresAt(), expiresIn);
    }

    private <E extends RuntimeException> E counted(String outcome, E error) {
        meters.counter("talkide.worker.token.mints", "outcome", outcome).increment();
        return error;
    }
}
