package app.talkide.controlplane.membership;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;

/** A user's right to use a tenant-environment: start conversations in it and read their own there. */
public record Membership(TenantEnvironmentId tenantEnvironment, String userId, Instant grantedAt) {}
