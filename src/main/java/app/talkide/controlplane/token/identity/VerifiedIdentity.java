package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.UUID;

/** The worker a presented identity token belongs to. */
public record VerifiedIdentity(UUID tokenId, TenantEnvironmentId tenantEnvironment) {}
