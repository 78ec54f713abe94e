package app.talkide.controlplane.membership;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/** A user stopped being a member of a tenant-environment; whatever they still hold open there must end. */
public record MembershipRevoked(TenantEnvironmentId tenantEnvironment, String userId) {}
