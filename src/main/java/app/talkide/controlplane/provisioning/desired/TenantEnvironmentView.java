package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the admin API shows of a tenant-environment: its status, its desired state as set and as it takes
 * effect, and how reconciling it goes.
 */
public record TenantEnvironmentView(
        String tenant,
        String env,
        String namespace,
        TenantEnvironmentStatus status,
        @Nullable String statusReason,
        DesiredStateSpec desiredState,
        DesiredState effectiveState,
        long generation,
        long appliedGeneration,
        @Nullable Instant lastReconciledAt,
        long driftRepairs,
        Instant createdAt,
        Instant updatedAt) {

    static TenantEnvironmentView of(TenantEnvironment environment, DesiredStateRecord record, DesiredState effective) {
        return new TenantEnvironmentView(
                environment.id().tenant(),
                environment.id().env(),
                environment.id().namespace(),
                environment.status(),
                environment.statusReason(),
                record.spec(),
                effective,
                record.generation(),
                record.appliedGeneration(),
                record.lastReconciledAt(),
                record.driftRepairs(),
                environment.createdAt(),
                environment.updatedAt());
    }
}
