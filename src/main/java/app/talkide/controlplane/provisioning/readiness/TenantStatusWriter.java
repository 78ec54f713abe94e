package app.talkide.controlplane.provisioning.readiness;

import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.provisioning.leader.LeadershipChanged;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Reflects worker readiness in the tenant-environment status: ready, provisioning (starting) or
 * degraded (unavailable). Every replica sees the same informer events; only the leader writes, so the
 * rows are written once, and a new leader writes what its informer knows when it takes over. A
 * tenant-environment being deleted keeps that status.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
class TenantStatusWriter {

    private static final Logger log = LoggerFactory.getLogger(TenantStatusWriter.class);

    private final TenantEnvironments tenantEnvironments;
    private final LeaderElection leaderElection;
    private final KubernetesWorkerRuntime runtime;

    TenantStatusWriter(
            TenantEnvironments tenantEnvironments, LeaderElection leaderElection, KubernetesWorkerRuntime runtime) {
        this.tenantEnvironments = tenantEnvironments;
        this.leaderElection = leaderElection;
        this.runtime = runtime;
    }

    @EventListener
    void onReadinessChanged(WorkerReadinessChanged changed) {
        if (leaderElection.isLeader()) {
            write(changed.tenantEnvironment(), changed.readiness(), changed.detail());
        }
    }

    @EventListener
    void onLeadershipChanged(LeadershipChanged changed) {
        if (changed.leading()) {
            runtime.snapshot().forEach((id, observed) -> write(id, observed.readiness(), observed.detail()));
        }
    }

    private void write(TenantEnvironmentId id, WorkerReadiness readiness, String detail) {
        try {
            TenantEnvironmentStatus wanted = statusOf(readiness);
            if (tenantEnvironments.observeWorker(id, wanted)) {
                log.info("Tenant-environment {} is now {}: {}", id, wanted, detail);
            }
        } catch (RuntimeException e) {
            log.warn("Could not record the status of {}; the next change or leadership retries it", id, e);
        }
    }

    static TenantEnvironmentStatus statusOf(WorkerReadiness readiness) {
        return switch (readiness) {
            case READY -> TenantEnvironmentStatus.READY;
            case STARTING -> TenantEnvironmentStatus.PROVISIONING;
            case UNAVAILABLE -> TenantEnvironmentStatus.DEGRADED;
        };
    }
}
