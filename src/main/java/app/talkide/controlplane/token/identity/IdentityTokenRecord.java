package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What is stored about an identity token (never the token). A {@code revokedAt} in the future is a
 * token being rotated out: it keeps working until then.
 */
public record IdentityTokenRecord(
        UUID id,
        TenantEnvironmentId tenantEnvironment,
        Instant createdAt,
        Instant expiresAt,
        @Nullable Instant revokedAt) {

    public boolean validAt(Instant now) {
        return now.isBefore(expiresAt) && (revokedAt == null || now.isBefore(revokedAt));
    }
}
