package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.desired.DesiredStateRecord;
import app.talkide.controlplane.provisioning.desired.DesiredStates;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.command.CommandKeys;
import app.talkide.controlplane.token.identity.IdentityTokens;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Reconciles tenant-environments into the cluster with the fabric8 client: applies the desired objects
 * ({@link ApplyStep}), or tears them down once the tenant-environment is {@code DELETING}
 * ({@link Deprovisioning}), then records the outcome: status (degraded with its reason, else ready or
 * provisioning from the worker Deployment's ready pods), last reconcile time, and the drift repairs, which are
 * the writes of a pass whose desired state was already applied before. Callers (the resync loop, desired-state
 * changes, token rotation) run it on the elected leader only, one pass per tenant-environment at a time.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
class KubernetesTenantEnvironmentReconciler implements TenantEnvironmentReconciler {

    static final String WAITING_FOR_WORKER = "Waiting for the worker to become ready.";
    static final String LEADERSHIP_LOST = "This replica no longer leads; the new leader reconciles.";
    private static final Logger log = LoggerFactory.getLogger(KubernetesTenantEnvironmentReconciler.class);

    private final TenantEnvironments tenantEnvironments;
    private final DesiredStates desiredStates;
    private final IdentityTokens identityTokens;
    private final ApplyStep apply;
    private final Deprovisioning deprovisioning;
    private final MeterRegistry meters;
    private final Counter driftRepairs;

    KubernetesTenantEnvironmentReconciler(
            KubernetesClient client,
            TenantEnvironments tenantEnvironments,
            DesiredStates desiredStates,
            IdentityTokens identityTokens,
            CommandKeys commandKeys,
            ProvisioningProperties properties,
            MeterRegistry meters,
            Clock clock) {
        this.tenantEnvironments = tenantEnvironments;
        this.desiredStates = desiredStates;
        this.identityTokens = identityTokens;
        this.apply = new ApplyStep(
                client,
                new ObjectApplier(client),
                new WorkerSecretValues(identityTokens, commandKeys),
                properties,
                clock);
        this.deprovisioning = new Deprovisioning(client, properties);
        this.meters = meters;
        this.driftRepairs = Counter.builder("talkide.provisioning.drift.repairs")
                .description("Writes that put back what changed in the cluster on its own")
                .register(meters);
    }

    @Override
    public ReconcileResult reconcile(TenantEnvironmentId id) {
        return reconcile(id, () -> true);
    }

    @Override
    public ReconcileResult reconcile(TenantEnvironmentId id, BooleanSupplier stillLeading) {
        Timer.Sample sample = Timer.start(meters);
        ReconcileResult result = pass(id, stillLeading);
        sample.stop(Timer.builder("talkide.provisioning.reconcile")
                .description("One reconcile pass over one tenant-environment")
                .tag("outcome", result.degradedReason() == null ? "ok" : "degraded")
                .register(meters));
        return result;
    }

    @Override
    public void deprovision(TenantEnvironmentId id) {
        identityTokens.revokeAll(id);
        if (tenantEnvironments.find(id).isPresent()) {
            tenantEnvironments.changeStatus(id, TenantEnvironmentStatus.DELETING, "deletion requested");
        }
        teardown(id);
    }

    private ReconcileResult pass(TenantEnvironmentId id, BooleanSupplier stillLeading) {
        Optional<TenantEnvironment> environment = tenantEnvironments.find(id);
        if (environment.isEmpty()) {
            return new ReconcileResult(0, "No such tenant-environment.");
        }
        switch (environment.get().status()) {
            case DELETED -> {
                return new ReconcileResult(0, null);
            }
            case DELETING -> {
                return teardown(id);
            }
            default -> {}
        }
        DesiredStateRecord record = desiredStates.record(id);
        if (desiredStates.isReserved(id)) {
            return degraded(
                    id, record, 0, "The namespace " + id.namespace() + " is reserved; it is never provisioned.");
        }
        ApplyStep.Result applied;
        try {
            applied = apply.apply(id, desiredStates.resolve(record), stillLeading);
        } catch (KubernetesClientException e) {
            return degraded(id, record, 0, "Kubernetes API: " + ApplyStep.describe(e), TransientApiError.is(e));
        }
        int writes = applied.written().size();
        if (applied.leadershipLost()) {
            // Not ours to record any more: the new leader's pass writes the status and counts what it repairs.
            log.info("Stopped reconciling {} after {} writes: this replica no longer leads", id, writes);
            return new ReconcileResult(writes, LEADERSHIP_LOST);
        }
        if (applied.degradedReason() != null) {
            return degraded(id, record, writes, applied.degradedReason(), applied.transientFailure());
        }
        boolean repairingDrift = record.lastReconciledAt() != null && record.generation() == record.appliedGeneration();
        int repairs = repairingDrift ? writes : 0;
        if (repairs > 0) {
            driftRepairs.increment(repairs);
            log.info("Repaired drift in {}: {}", id, applied.written());
        }
        desiredStates.recordPass(id, record.generation(), repairs);
        if (applied.workerReady()) {
            tenantEnvironments.reconciled(id, TenantEnvironmentStatus.READY, null);
        } else {
            tenantEnvironments.reconciled(id, TenantEnvironmentStatus.PROVISIONING, WAITING_FOR_WORKER);
        }
        return new ReconcileResult(writes, null);
    }

    private ReconcileResult degraded(TenantEnvironmentId id, DesiredStateRecord record, int writes, String reason) {
        return degraded(id, record, writes, reason, false);
    }

    private ReconcileResult degraded(
            TenantEnvironmentId id, DesiredStateRecord record, int writes, String reason, boolean retry) {
        desiredStates.recordPass(id, record.appliedGeneration(), 0);
        if (tenantEnvironments.reconciled(id, TenantEnvironmentStatus.DEGRADED, reason)) {
            log.warn("Tenant-environment {} is degraded: {}", id, reason);
        }
        return new ReconcileResult(writes, reason, retry);
    }

    private ReconcileResult teardown(TenantEnvironmentId id) {
        // The deletion revoked every token, but one may have been issued since: by a pass that was already
        // applying when the deletion came (it found the Secret's token revoked and rotated it), or by an
        // admin. None may outlive the teardown.
        identityTokens.revokeAll(id);
        DesiredState desired = desiredStates.resolve(desiredStates.record(id));
        Deprovisioning.Result result;
        try {
            result = deprovisioning.run(id, desired);
        } catch (KubernetesClientException e) {
            result = new Deprovisioning.Result(0, false, "Kubernetes API: " + ApplyStep.describe(e));
        }
        boolean known = tenantEnvironments.find(id).isPresent();
        if (result.done()) {
            if (known) {
                desiredStates.finishDeletion(id);
            }
            log.info("Deprovisioned {}", id);
            return new ReconcileResult(result.writes(), null);
        }
        if (known) {
            tenantEnvironments.changeStatus(id, TenantEnvironmentStatus.DELETING, result.reason());
        }
        return new ReconcileResult(result.writes(), result.reason());
    }
}
