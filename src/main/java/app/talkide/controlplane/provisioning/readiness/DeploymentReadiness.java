package app.talkide.controlplane.provisioning.readiness;

import app.talkide.controlplane.worker.WorkerReadiness;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Whether a worker Deployment can take commands, read only from its status: at least one available
 * replica means ready (during a rollout the old pod still serves); none, while Kubernetes still reports
 * progress, means starting; a failed rollout, a replica failure (e.g. quota) or zero replicas means
 * unavailable. Pure, so every case is a unit test.
 */
final class DeploymentReadiness {

    private DeploymentReadiness() {}

    record Observed(WorkerReadiness readiness, String detail) {}

    static Observed of(@Nullable Deployment deployment) {
        if (deployment == null) {
            return new Observed(WorkerReadiness.STARTING, "The worker is being provisioned.");
        }
        if (deployment.getMetadata().getDeletionTimestamp() != null) {
            return new Observed(WorkerReadiness.UNAVAILABLE, "The worker is being removed.");
        }
        DeploymentStatus status = deployment.getStatus() == null ? new DeploymentStatus() : deployment.getStatus();
        List<DeploymentCondition> conditions = status.getConditions() == null ? List.of() : status.getConditions();
        int available = orZero(status.getAvailableReplicas());
        int desired = deployment.getSpec() == null
                ? 1
                : orDefault(deployment.getSpec().getReplicas(), 1);
        boolean rollingOut = isRollingOut(deployment, status, desired);

        Optional<DeploymentCondition> replicaFailure = condition(conditions, "ReplicaFailure", "True");
        Optional<DeploymentCondition> stuck = condition(conditions, "Progressing", "False")
                .filter(c -> "ProgressDeadlineExceeded".equals(c.getReason()));
        if (available > 0) {
            return new Observed(
                    WorkerReadiness.READY,
                    rollingOut ? "The worker is ready; a new version is rolling out." : "The worker is ready.");
        }
        if (desired == 0) {
            return new Observed(WorkerReadiness.UNAVAILABLE, "The worker is scaled to zero.");
        }
        if (replicaFailure.isPresent()) {
            return new Observed(
                    WorkerReadiness.UNAVAILABLE, "The worker cannot start: " + message(replicaFailure.get()));
        }
        if (stuck.isPresent()) {
            return new Observed(
                    WorkerReadiness.UNAVAILABLE, "The worker did not become ready in time: " + message(stuck.get()));
        }
        return new Observed(WorkerReadiness.STARTING, "The worker is starting.");
    }

    private static boolean isRollingOut(Deployment deployment, DeploymentStatus status, int desired) {
        Long generation = deployment.getMetadata().getGeneration();
        Long observed = status.getObservedGeneration();
        boolean unobserved = generation != null && (observed == null || observed < generation);
        return unobserved
                || orZero(status.getUpdatedReplicas()) < desired
                || orZero(status.getReplicas()) > orZero(status.getUpdatedReplicas());
    }

    private static Optional<DeploymentCondition> condition(
            List<DeploymentCondition> conditions, String type, String status) {
        return conditions.stream()
                .filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()))
                .findFirst();
    }

    private static String message(DeploymentCondition condition) {
        return Objects.requireNonNullElse(
                condition.getMessage(), Objects.requireNonNullElse(condition.getReason(), ""));
    }

    private static int orZero(@Nullable Integer value) {
        return value == null ? 0 : value;
    }

    private static int orDefault(@Nullable Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
