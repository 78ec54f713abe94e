package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.UUID;

/** A newly issued identity token. The only moment its value exists outside the worker's Secret. */
public record IssuedIdentityToken(UUID id, TenantEnvironmentId tenantEnvironment, String token, Instant expiresAt) {

    @Override
    public String toString() {
        return "IssuedIdentityToken[id=" + id + ", tenantEnvironment=" + tenantEnvironment
                + ", token=<redacted>, expiresAt=" + expiresAt + "]";
    }
}
