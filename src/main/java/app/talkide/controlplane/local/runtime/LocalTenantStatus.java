package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Local mode's counterpart of provisioning's status writer: nothing reconciles here, so the embedded
 * worker's own readiness is the tenant-environment's status (ready once it serves, provisioning while it
 * restarts). Without it the admin page showed {@code demo/dev} as provisioning for ever.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "local")
class LocalTenantStatus {

    private final TenantEnvironments tenantEnvironments;

    LocalTenantStatus(TenantEnvironments tenantEnvironments) {
        this.tenantEnvironments = tenantEnvironments;
    }

    @EventListener
    void onReadinessChanged(WorkerReadinessChanged changed) {
        TenantEnvironmentStatus status = switch (changed.readiness()) {
            case READY -> TenantEnvironmentStatus.READY;
            case STARTING -> TenantEnvironmentStatus.PROVISIONING;
            case UNAVAILABLE -> TenantEnvironmentStatus.DEGRADED;
        };
        tenantEnvironments.observeWorker(changed.tenantEnvironment(), status);
    }
}
