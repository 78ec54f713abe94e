package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * Whether a tenant-environment exists (and is not deleted), asked before any key is derived for a token
 * that names it: the name in an unverified token is attacker-chosen, so deriving first would let anyone
 * grow per-name state without a valid signature.
 */
@FunctionalInterface
public interface KnownTenantEnvironments {

    boolean exists(TenantEnvironmentId tenantEnvironment);
}
