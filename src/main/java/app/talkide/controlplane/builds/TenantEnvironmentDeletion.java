package app.talkide.controlplane.builds;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * A tenant-environment being deleted runs no more builds: its queued builds never start and its running
 * ones are cancelled, which deletes their Jobs ({@code job.BuildCancellation}; the leader's sweep retries).
 * The namespace's teardown would remove the Jobs too, but only later, and the builds would stay "running".
 */
@Component
class TenantEnvironmentDeletion {

    private final TenantEnvironments tenantEnvironments;
    private final Builds builds;

    TenantEnvironmentDeletion(TenantEnvironments tenantEnvironments, Builds builds) {
        this.tenantEnvironments = tenantEnvironments;
        this.builds = builds;
    }

    @EventListener
    void on(DesiredStateChanged changed) {
        tenantEnvironments
                .find(changed.tenantEnvironment())
                .filter(environment -> environment.status() == TenantEnvironmentStatus.DELETING)
                .ifPresent(environment -> builds.cancelAll(
                        changed.tenantEnvironment(), "cancelled: its tenant-environment is being deleted"));
    }
}
