package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.builds.Builds;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * The leader's copy of each running build's log, every {@code log-poll-interval}, and the end of a build
 * whose pod cannot pull its image. {@link BuildJobWatch} decides when a build is followed: only while it
 * watches, so a replica that lost the Lease copies nothing.
 */
final class BuildLogFollowing {

    private static final Logger log = LoggerFactory.getLogger(BuildLogFollowing.class);

    private final Builds builds;
    private final BuildPodLogs logs;
    private final BuildProperties properties;
    private final Clock clock;
    private final TaskScheduler pollers;
    private final BiConsumer<TenantEnvironmentId, String> deleteJob;
    /** Where a build that cannot pull its image is failed: the dispatcher's thread. */
    private final Consumer<Runnable> dispatchThread;

    private final Map<UUID, ScheduledFuture<?>> followed = new ConcurrentHashMap<>();
    /** Per running build whose pod cannot pull its image: since when this replica has seen it so. */
    private final Map<UUID, Instant> pullFailingSince = new ConcurrentHashMap<>();

    BuildLogFollowing(
            Builds builds,
            BuildPodLogs logs,
            BuildProperties properties,
            Clock clock,
            TaskScheduler pollers,
            BiConsumer<TenantEnvironmentId, String> deleteJob,
            Consumer<Runnable> dispatchThread) {
        this.builds = builds;
        this.logs = logs;
        this.properties = properties;
        this.clock = clock;
        this.pollers = pollers;
        this.deleteJob = deleteJob;
        this.dispatchThread = dispatchThread;
    }

    /** Copies the build's log every {@code log-poll-interval} until it ends or {@link #stop}; once per build. */
    void follow(Build build) {
        Duration every = properties.logPollInterval();
        followed.computeIfAbsent(
                build.id(),
                id -> pollers.scheduleWithFixedDelay(
                        () -> copyLog(id), pollers.getClock().instant().plus(every), every));
    }

    /** Stops following every build. */
    void stopAll() {
        followed.values().forEach(f -> f.cancel(false));
        followed.clear();
    }

    private void copyLog(UUID id) {
        try {
            Build build = builds.find(id).orElse(null);
            if (build == null || build.state() != BuildState.RUNNING) {
                stop(id);
                return;
            }
            Pod pod = logs.pod(build).orElse(null);
            if (unpullable(build, pod)) {
                return;
            }
            logs.copy(build, pod, false);
        } catch (RuntimeException e) {
            log.debug("Reading the log of build {} failed; trying again", id, e);
        }
    }

    /**
     * Whether the build's pod has failed to pull its image for {@code image-pull-grace} (a malformed name at
     * once); then the build fails on the dispatch thread. The Job controller would wait for the deadline.
     */
    private boolean unpullable(Build build, @Nullable Pod pod) {
        ImagePullFailure failure = ImagePullFailure.of(pod).orElse(null);
        if (failure == null) {
            pullFailingSince.remove(build.id());
            return false;
        }
        Instant since = pullFailingSince.computeIfAbsent(build.id(), id -> clock.instant());
        if (!failure.permanent() && since.plus(properties.imagePullGrace()).isAfter(clock.instant())) {
            return false;
        }
        stop(build.id());
        dispatchThread.accept(() -> failUnpullable(build.id(), failure));
        return true;
    }

    private void failUnpullable(UUID id, ImagePullFailure failure) {
        Build build = builds.find(id).orElse(null);
        if (build == null || build.state() != BuildState.RUNNING) {
            return;
        }
        if (builds.finish(build, BuildState.RUNNING, BuildState.FAILED, failure.buildFailure())) {
            log.info("Build {} failed: {}", id, failure.buildFailure());
            // Its pod would go on pulling until the deadline; the Job's removal ends it.
            deleteJob.accept(build.tenantEnvironment(), build.jobName());
        }
    }

    /** Stops copying the build's log (it ended, or its Job is gone). */
    void stop(UUID id) {
        pullFailingSince.remove(id);
        ScheduledFuture<?> future = followed.remove(id);
        if (future != null) {
            future.cancel(false);
        }
    }
}
