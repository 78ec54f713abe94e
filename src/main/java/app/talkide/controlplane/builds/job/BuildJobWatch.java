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
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
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
    private final BuildLogFollowing following;

    /** Orders {@link #start}, {@link #stop} and {@link #follow}: see {@link #start}. */
    private final ReentrantLock lifecycle = new ReentrantLock();

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
        this.following = new BuildLogFollowing(
                builds, logs, properties, clock, pollers, this::delete, task -> dispatchThread.accept(task));
    }

    /**
     * Starts the informer unless it runs or this replica no longer {@code leads}; its events are handled on the
     * dispatcher's thread. Not waited for: the informer's list and watch, slow on a loaded API server (or one
     * that never answers the watch), would hold the dispatcher's one lock, and no queued build could start
     * meanwhile. Adoption reads the informer's store only once it has synced; one that failed to start is
     * started again by the next sweep.
     *
     * <p>Start and {@link #stop} take turns: a stop for a lost Lease comes from the election's thread at once,
     * while a start may be half done on the dispatcher's. A stop that comes first is not undone (the start
     * sees the Lease lost), and one that comes during a start waits for it and closes what it started.
     */
    void start(Consumer<Runnable> onDispatchThread, BooleanSupplier leads) {
        lifecycle.lock();
        try {
            if (informer != null || !leads.getAsBoolean()) {
                return;
            }
            dispatchThread = onDispatchThread;
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
            builds.running().forEach(this::follow);
            created.start().whenComplete((started, failure) -> {
                if (failure != null && forget(created)) {
                    log.warn("The build Job informer did not start; the next sweep starts another", failure);
                }
            });
        } finally {
            lifecycle.unlock();
        }
    }

    /** Closes the informer and stops following builds; a start afterwards needs the Lease again. */
    void stop() {
        lifecycle.lock();
        try {
            SharedIndexInformer<Job> current = informer;
            informer = null;
            if (current != null) {
                current.close();
            }
            following.stopAll();
        } finally {
            lifecycle.unlock();
        }
    }

    /** Whether an informer runs or is starting (for tests). */
    boolean watching() {
        return informer != null;
    }

    /** Drops an informer that failed to start; false if a stop closed it first (that is no failure). */
    private boolean forget(SharedIndexInformer<Job> failed) {
        boolean current;
        lifecycle.lock();
        try {
            current = informer == failed;
            if (current) {
                informer = null;
            }
        } finally {
            lifecycle.unlock();
        }
        failed.close();
        return current;
    }

    /** Copies the build's log until it ends; nothing while stopped (a build dispatched as the Lease was lost). */
    void follow(Build build) {
        lifecycle.lock();
        try {
            if (informer == null) {
                return; // the next leader's start follows it
            }
            following.follow(build);
        } finally {
            lifecycle.unlock();
        }
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
                following.stop(build.id());
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
        following.stop(build.id());
        BuildJobOutcome withPod = BuildJobOutcome.of(job, pod).orElseThrow();
        builds.finish(build, BuildState.RUNNING, withPod.state(), withPod.reason());
    }

    private void gone(Job job) {
        buildOf(job).filter(build -> build.state() == BuildState.RUNNING).ifPresent(build -> {
            following.stop(build.id());
            builds.finish(build, BuildState.RUNNING, BuildState.FAILED, "its Job was deleted before it ended");
        });
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
