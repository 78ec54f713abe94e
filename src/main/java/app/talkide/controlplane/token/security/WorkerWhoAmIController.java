package app.talkide.controlplane.token.security;

import app.talkide.controlplane.token.WorkerPrincipal;
import java.time.Instant;
import java.util.UUID;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/internal/worker/whoami}: tells a worker what its WorkerToken stands for. Workers use it
 * as a start-up self-check of the mint-then-call path; operators use it to debug a worker's 401s.
 */
@RestController
class WorkerWhoAmIController {

    @GetMapping("/api/internal/worker/whoami")
    WhoAmI whoami(@AuthenticationPrincipal WorkerPrincipal worker) {
        return new WhoAmI(
                worker.tenantEnvironment().tenant(),
                worker.tenantEnvironment().env(),
                worker.conversationId(),
                worker.userId(),
                worker.expiresAt());
    }

    record WhoAmI(String tenant, String env, UUID conversationId, String userId, Instant expiresAt) {}
}
