package app.talkide.controlplane.token;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.UUID;

/**
 * Who is calling an internal endpoint: the worker of a tenant-environment, acting for one conversation
 * and its owner. Taken from a verified WorkerToken; available as the authentication principal on
 * every {@code /api/internal/**} request ({@code @AuthenticationPrincipal WorkerPrincipal}).
 */
public record WorkerPrincipal(
        TenantEnvironmentId tenantEnvironment, UUID conversationId, String userId, String tokenId, Instant expiresAt) {

    /** Whether this caller may act on the given conversation. */
    public boolean actsFor(UUID conversation) {
        return conversationId.equals(conversation);
    }
}
