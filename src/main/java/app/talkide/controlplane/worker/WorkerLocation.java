package app.talkide.controlplane.worker;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.net.URI;

/**
 * Where a worker answers and how it is doing.
 *
 * @param baseUrl e.g. {@code http://talkide-worker.acme-dev.svc.cluster.local:8080}
 * @param detail why it is not ready, in words an operator (and, shortened, a user) understands
 */
public record WorkerLocation(
        TenantEnvironmentId tenantEnvironment, URI baseUrl, WorkerReadiness readiness, String detail) {

    public boolean isReady() {
        return readiness == WorkerReadiness.READY;
    }
}
