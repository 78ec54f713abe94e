package app.talkide.controlplane.worker;

import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * Tells where a tenant-environment's worker can be reached and whether it is ready. Two
 * implementations: {@code local} (the embedded reference worker on a loopback port) and
 * {@code kubernetes} (the provisioned Deployment's Service, readiness from an informer). Changes of
 * readiness are published as {@link WorkerReadinessChanged} events.
 */
public interface WorkerRuntime {

    WorkerLocation locate(TenantEnvironmentId tenantEnvironment);
}
