package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * Rotates a tenant-environment's identity token where its worker picks the new one up. Provisioning
 * supplies the Kubernetes one (new token into the worker's Secret, Deployment rolled, old token retired
 * after the grace period); without one, the admin API rotates in the database only.
 */
public interface IdentityTokenRotator {

    IdentityTokens.Rotation rotate(TenantEnvironmentId tenantEnvironment);
}
