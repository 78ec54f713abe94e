package app.talkide.controlplane.provisioning.readiness;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.worker.WorkerReadiness;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import org.junit.jupiter.api.Test;

class DeploymentReadinessTest {

    @Test
    void noDeploymentYetIsStarting() {
        assertThat(DeploymentReadiness.of(null).readiness()).isEqualTo(WorkerReadiness.STARTING);
    }

    @Test
    void freshDeploymentWithoutStatusIsStarting() {
        assertThat(DeploymentReadiness.of(deployment(1, 1L, null, 0, 0, 0)).readiness())
                .isEqualTo(WorkerReadiness.STARTING);
    }

    @Test
    void oneAvailableReplicaIsReady() {
        var observed = DeploymentReadiness.of(
                deployment(1, 2L, 2L, 1, 1, 1, condition("Available", "True", "MinimumReplicasAvailable")));
        assertThat(observed.readiness()).isEqualTo(WorkerReadiness.READY);
        assertThat(observed.detail()).isEqualTo("The worker is ready.");
    }

    @Test
    void rolloutWithTheOldPodStillAvailableIsReadyAndSaysSo() {
        // Generation bumped by the rolled-at annotation, not yet observed; the old pod still serves.
        var observed = DeploymentReadiness.of(deployment(1, 3L, 2L, 1, 0, 1));
        assertThat(observed.readiness()).isEqualTo(WorkerReadiness.READY);
        assertThat(observed.detail()).contains("rolling out");
    }

    @Test
    void noAvailableReplicaWhileProgressingIsStarting() {
        var observed = DeploymentReadiness.of(
                deployment(1, 1L, 1L, 0, 1, 1, condition("Progressing", "True", "ReplicaSetUpdated")));
        assertThat(observed.readiness()).isEqualTo(WorkerReadiness.STARTING);
    }

    @Test
    void progressDeadlineExceededIsUnavailableWithKubernetesMessage() {
        var observed = DeploymentReadiness.of(deployment(
                1,
                1L,
                1L,
                0,
                1,
                1,
                condition(
                        "Progressing", "False", "ProgressDeadlineExceeded", "ReplicaSet has timed out progressing.")));
        assertThat(observed.readiness()).isEqualTo(WorkerReadiness.UNAVAILABLE);
        assertThat(observed.detail()).contains("timed out progressing");
    }

    @Test
    void replicaFailureSuchAsQuotaIsUnavailable() {
        var observed = DeploymentReadiness.of(deployment(
                1, 1L, 1L, 0, 0, 0, condition("ReplicaFailure", "True", "FailedCreate", "exceeded quota: compute")));
        assertThat(observed.readiness()).isEqualTo(WorkerReadiness.UNAVAILABLE);
        assertThat(observed.detail()).contains("exceeded quota");
    }

    @Test
    void scaledToZeroIsUnavailable() {
        assertThat(DeploymentReadiness.of(deployment(0, 1L, 1L, 0, 0, 0)).readiness())
                .isEqualTo(WorkerReadiness.UNAVAILABLE);
    }

    @Test
    void deploymentBeingDeletedIsUnavailable() {
        Deployment deleting = new DeploymentBuilder(deployment(1, 1L, 1L, 1, 1, 1))
                .editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:00Z")
                .endMetadata()
                .build();
        assertThat(DeploymentReadiness.of(deleting).readiness()).isEqualTo(WorkerReadiness.UNAVAILABLE);
    }

    static Deployment deployment(
            int replicas,
            Long generation,
            Long observedGeneration,
            int available,
            int updated,
            int current,
            DeploymentCondition... conditions) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName("talkide-worker")
                .withNamespace("acme-dev")
                .withGeneration(generation)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(observedGeneration)
                .withAvailableReplicas(available)
                .withUpdatedReplicas(updated)
                .withReplicas(current)
                .withConditions(conditions)
                .endStatus()
                .build();
    }

    static DeploymentCondition condition(String type, String status, String reason) {
        return condition(type, status, reason, null);
    }

    static DeploymentCondition condition(String type, String status, String reason, String message) {
        return new DeploymentConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .build();
    }
}
