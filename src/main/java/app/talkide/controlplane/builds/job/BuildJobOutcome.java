package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.BuildState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Reads a Job's (and its pod's) status as a build outcome; empty while it still runs. */
record BuildJobOutcome(BuildState state, @Nullable String reason) {

    static Optional<BuildJobOutcome> of(Job job, @Nullable Pod pod) {
        var status = job.getStatus();
        if (status == null) {
            return Optional.empty();
        }
        List<JobCondition> conditions = status.getConditions() == null ? List.of() : status.getConditions();
        if (has(conditions, "Complete") || (status.getSucceeded() != null && status.getSucceeded() > 0)) {
            return Optional.of(new BuildJobOutcome(BuildState.SUCCEEDED, null));
        }
        for (JobCondition condition : conditions) {
            if ("Failed".equals(condition.getType()) && "True".equals(condition.getStatus())) {
                return Optional.of(new BuildJobOutcome(BuildState.FAILED, failure(condition, pod)));
            }
        }
        if (status.getFailed() != null && status.getFailed() > 0) {
            return Optional.of(new BuildJobOutcome(BuildState.FAILED, failure(null, pod)));
        }
        return Optional.empty();
    }

    private static String failure(@Nullable JobCondition condition, @Nullable Pod pod) {
        if (condition != null && "DeadlineExceeded".equals(condition.getReason())) {
            return "the build ran longer than its deadline (talkide.builds.active-deadline) and was stopped";
        }
        Integer exitCode = exitCode(pod);
        if (exitCode != null) {
            return "the build failed with exit code " + exitCode;
        }
        String why = condition == null ? null : condition.getMessage();
        return why == null || why.isBlank() ? "the build failed" : "the build failed: " + why;
    }

    static @Nullable Integer exitCode(@Nullable Pod pod) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
            ContainerStateTerminated terminated =
                    container.getState() == null ? null : container.getState().getTerminated();
            if (BuildPodTemplate.CONTAINER.equals(container.getName()) && terminated != null) {
                return terminated.getExitCode();
            }
        }
        return null;
    }

    private static boolean has(List<JobCondition> conditions, String type) {
        return conditions.stream().anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
