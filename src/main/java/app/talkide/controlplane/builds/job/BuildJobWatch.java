package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildLog;
import app.talkide.controlplane.builds.BuildNames;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.builds.Builds;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * The leader's view of running builds: one informer on build Jobs in every namespace (by label), a log
 * copy every {@code log-poll-interval} per running build, and the outcome once the Job ends (log copied
 * first, so a finished build's log is complete when its state says so). A new leader adopts: the
 * informer's first list brings every Job, and a running build whose Job is gone is failed.
 */
@Component
@ConditionalOnExpression("'${talkide.worker.runtime:local}' == 'kubernetes' and ${talkide.builds.enabled:false}")
class BuildJobWatch {

    private static final Logger log = LoggerFactory.getLogger(BuildJobWatch.class);
    /** A claimed build's Job is created right after the claim; younger ones are not called orphans yet. */
    private static final Duration ORPHAN_GRACE = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final Builds builds;
    private final BuildProperties properties;
    private final BuildPodLogs logs;
    private final Clock clock;
    private final TaskScheduler pollers;
    private final Map<UUID, ScheduledFuture<?>> followed = new ConcurrentHashMap<>();
    /** Per running build whose pod cannot pull its image: since when this replica has seen it so. */
    private final Map<UUID, Instant> pullFailingSince = new ConcurrentHashMap<>();

    private volatile @Nullable SharedIndexInformer<Job> informer;
    private volatile Consumer<Runnable> dispatchThread = Runnable::run;

    BuildJobWatch(
            KubernetesClient client,
            Builds builds,
            BuildProperties properties,
            BuildLog log,
            Clock clock,
            TaskScheduler pollers) {
        this.client = client;
        this.builds = builds;
        this.properties = properties;
        this.logs = new BuildPodLogs(
                client,
                log,
                properties.maxLogLines(),
                new CredentialRedaction(client, properties.image().registryCredentialSecret()));
        this.clock = clock;
        this.pollers = pollers;
    }

    /**
     * Starts the informer unless it runs; its events are handled on the dispatcher's thread. Not waited for: the
     * informer's list and watch, slow on a loaded API server (or one that never answers the watch), would hold
     * the dispatcher's one lock, and no queued build could start meanwhile. Adoption reads the informer's store
     * only once it has synced; one that failed to start is started again by the next sweep.
     */
    void start(Consumer<Runnable> onDispatchThread) {
        if (informer != null) {
            return;
        }
        dispatchThread = onDispatchThread;
        builds.running().forEach(this::follow);
        SharedIndexInformer<Job> created = client.batch()
                .v1()
                .jobs()
                .inAnyNamespace()
                .withLabel(BuildNames.COMPONENT_LABEL, BuildNames.COMPONENT)
                .runnableInformer(0);
        created.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Job job) {
                dispatchThread.accept(() -> observe(job));
            }

            @Override
            public void onUpdate(Job old, Job job) {
                dispatchThread.accept(() -> observe(job));
            }

            @Override
            public void onDelete(Job job, boolean unknownFinalState) {
                dispatchThread.accept(() -> gone(job));
            }
        });
        informer = created;
        created.start().whenComplete((started, failure) -> {
            if (failure != null && informer == created) {
                log.warn("The build Job informer did not start; the next sweep starts another", failure);
                informer = null;
                created.close();
            }
        });
    }

    void stop() {
        SharedIndexInformer<Job> current = informer;
        informer = null;
        if (current != null) {
            current.close();
        }
        followed.values().forEach(f -> f.cancel(false));
        followed.clear();
    }

    void follow(Build build) {
        Duration every = properties.logPollInterval();
        followed.computeIfAbsent(
                build.id(),
                id -> pollers.scheduleWithFixedDelay(
                        () -> copyLog(id), pollers.getClock().instant().plus(every), every));
    }

    void delete(TenantEnvironmentId in, String jobName) {
        try {
            // Background: the Job goes at once, its pod is removed by the garbage collector.
            client.batch()
                    .v1()
                    .jobs()
                    .inNamespace(in.namespace())
                    .withName(jobName)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND)
                    .delete();
        } catch (KubernetesClientException e) {
            log.warn(
                    "Could not delete build Job {}/{} ({}); the next sweep tries again",
                    in.namespace(),
                    jobName,
                    e.getCode());
        }
    }

    /** Running builds whose Job no informer has, and Jobs of builds that ended (a cancel whose delete failed). */
    void adoptOrphans() {
        SharedIndexInformer<Job> current = informer;
        if (current == null || !current.hasSynced()) {
            return;
        }
        for (Build build : builds.running()) {
            boolean old = build.startedAt() != null
                    && build.startedAt().plus(ORPHAN_GRACE).isBefore(clock.instant());
            if (old && job(current, build) == null) {
                stopFollowing(build.id());
                builds.finish(build, BuildState.RUNNING, BuildState.FAILED, "its Job disappeared");
            }
        }
        for (Job job : current.getStore().list()) {
            buildOf(job)
                    .filter(build -> build.state() == BuildState.CANCELLED)
                    .ifPresent(build ->
                            delete(build.tenantEnvironment(), job.getMetadata().getName()));
        }
    }

    private void observe(Job job) {
        Build build = buildOf(job).orElse(null);
        if (build == null) {
            return;
        }
        if (build.state() == BuildState.CANCELLED && job.getMetadata().getDeletionTimestamp() == null) {
            delete(build.tenantEnvironment(), job.getMetadata().getName());
            return;
        }
        if (build.state() != BuildState.RUNNING) {
            return;
        }
        follow(build);
        Pod pod = null;
        Optional<BuildJobOutcome> outcome = BuildJobOutcome.of(job, null);
        if (outcome.isEmpty()) {
            return;
        }
        try {
            pod = logs.pod(build).orElse(null);
            logs.copy(build, pod, true);
        } catch (KubernetesClientException e) {
            log.warn("The log of build {} could not be read at its end ({})", build.id(), e.getCode());
        }
        stopFollowing(build.id());
        BuildJobOutcome withPod = BuildJobOutcome.of(job, pod).orElseThrow();
        builds.finish(build, BuildState.RUNNING, withPod.state(), withPod.reason());
    }

    private void gone(Job job) {
        buildOf(job).filter(build -> build.state() == BuildState.RUNNING).ifPresent(build -> {
            stopFollowing(build.id());
            builds.finish(build, BuildState.RUNNING, BuildState.FAILED, "its Job was deleted before it ended");
        });
    }

    private void copyLog(UUID id) {
        try {
            Build build = builds.find(id).orElse(null);
            if (build == null || build.state() != BuildState.RUNNING) {
                stopFollowing(id);
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
        stopFollowing(build.id());
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
            delete(build.tenantEnvironment(), build.jobName());
        }
    }

    private void stopFollowing(UUID id) {
        pullFailingSince.remove(id);
        ScheduledFuture<?> future = followed.remove(id);
        if (future != null) {
            future.cancel(false);
        }
    }

    private Optional<Build> buildOf(Job job) {
        String id = job.getMetadata().getLabels() == null
                ? null
                : job.getMetadata().getLabels().get(BuildNames.BUILD_ID_LABEL);
        try {
            return id == null ? Optional.empty() : builds.find(UUID.fromString(id));
        } catch (IllegalArgumentException notOurs) {
            return Optional.empty();
        }
    }

    private static @Nullable Job job(SharedIndexInformer<Job> informer, Build build) {
        return informer.getStore().getByKey(build.tenantEnvironment().namespace() + "/" + build.jobName());
    }
}
