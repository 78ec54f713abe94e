package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildFinished;
import app.talkide.controlplane.builds.BuildKind;
import app.talkide.controlplane.builds.BuildNames;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.builds.BuildRequested;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.builds.Builds;
import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.BuildPlacements;
import app.talkide.controlplane.provisioning.leader.LeadershipChanged;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * The leader's half of builds: starts queued builds as Jobs while their tenant-environment has fewer than
 * {@code max-running} running (oldest first), follows the running ones ({@link BuildJobWatch}), and on
 * becoming leader adopts what the previous leader left running. All of it one step at a time, on the
 * application's scheduler under one lock, so two dispatches never race; other replicas only queue and cancel. Requests accepted by another replica are found by the
 * sweep every {@code dispatch-interval}.
 */
@Component
@ConditionalOnExpression("'${talkide.worker.runtime:local}' == 'kubernetes' and ${talkide.builds.enabled:false}")
class BuildDispatcher implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(BuildDispatcher.class);

    private final KubernetesClient client;
    private final Builds builds;
    private final BuildProperties properties;
    private final BuildJobWatch watch;
    private final BuildPlacements placements;
    private final TaskScheduler scheduler;
    private final ReentrantLock oneStepAtATime = new ReentrantLock();
    private volatile boolean leading;
    private volatile boolean running;
    private volatile @Nullable ScheduledFuture<?> sweep;

    BuildDispatcher(
            KubernetesClient client,
            Builds builds,
            BuildProperties properties,
            BuildJobWatch watch,
            BuildPlacements placements,
            TaskScheduler scheduler) {
        this.client = client;
        this.builds = builds;
        this.properties = properties;
        this.watch = watch;
        this.placements = placements;
        this.scheduler = scheduler;
    }

    @EventListener
    void on(LeadershipChanged change) {
        leading = change.leading();
        if (!leading) {
            // At once, not queued: a replica that lost the Lease must stop acting on Jobs now.
            watch.stop();
        }
        execute(() -> {
            if (sweep != null) {
                sweep.cancel(false);
                sweep = null;
            }
            // The newest state, not this event's: a loss and a regain queued together end up leading.
            if (leading) {
                watch.start(this::execute, () -> leading);
                sweep = scheduler.scheduleWithFixedDelay(() -> step(this::sweep), properties.dispatchInterval());
            }
        });
    }

    /** After the request's transaction committed, so the dispatch thread sees the row. */
    @TransactionalEventListener(fallbackExecution = true)
    void on(BuildRequested requested) {
        execute(() -> dispatch(requested.tenantEnvironment()));
    }

    @EventListener
    void on(BuildFinished finished) {
        execute(() -> dispatch(finished.tenantEnvironment()));
    }

    /** Runs one step at a time after the others; a failure is logged and the next sweep tries again. */
    void execute(Runnable task) {
        if (running) {
            scheduler.schedule(() -> step(task), scheduler.getClock().instant());
        }
    }

    private void sweep() {
        if (!leading) {
            return; // a sweep queued before the loss must not start the informer again
        }
        watch.start(this::execute, () -> leading); // again if its informer failed to start
        watch.adoptOrphans();
        builds.withQueued().forEach(this::dispatch);
    }

    private void dispatch(TenantEnvironmentId in) {
        if (!leading) {
            return;
        }
        while (builds.running(in) < properties.maxRunning()) {
            Build build = builds.claimNext(in).orElse(null);
            if (build == null) {
                return;
            }
            start(build);
        }
    }

    private void start(Build build) {
        String namespace = build.tenantEnvironment().namespace();
        try {
            if (build.spec().kind() == BuildKind.GRADLE) {
                ensureGradleCache(build.tenantEnvironment());
            }
            // Read now, not cached: a changed placement reaches the next build (a running Job keeps its own).
            BuildPlacement placement = placements
                    .buildPlacement(build.tenantEnvironment())
                    .orElse(properties.placement().asDefaults());
            Job job = build.spec().kind() == BuildKind.GRADLE
                    ? GradleJobBuilder.build(build, properties, placement)
                    : ImageJobBuilder.build(build, properties, placement);
            client.batch().v1().jobs().inNamespace(namespace).resource(job).create();
        } catch (KubernetesClientException e) {
            builds.finish(
                    build,
                    BuildState.RUNNING,
                    BuildState.FAILED,
                    "its Job could not be created (" + e.getCode()
                            + (e.getStatus() == null ? "" : " " + e.getStatus().getReason()) + ")");
            return;
        }
        // A cancel that landed between the claim and the create found no Job to delete: delete it now.
        if (builds.find(build.id()).map(Build::state).orElse(BuildState.CANCELLED) != BuildState.RUNNING) {
            watch.delete(build.tenantEnvironment(), BuildNames.jobName(build.id()));
            return;
        }
        log.info(
                "Build {} of {} dispatched as Job {}/{}",
                build.id(),
                build.tenantEnvironment(),
                namespace,
                build.jobName());
        watch.follow(build);
    }

    private void ensureGradleCache(TenantEnvironmentId in) {
        var claims = client.persistentVolumeClaims().inNamespace(in.namespace());
        if (claims.withName(BuildNames.GRADLE_CACHE_VOLUME).get() == null) {
            claims.resource(GradleCacheVolumeBuilder.build(in, properties.gradle()))
                    .create();
        }
    }

    private void step(Runnable task) {
        oneStepAtATime.lock();
        try {
            if (running) {
                task.run();
            }
        } catch (RuntimeException e) {
            log.warn("Build dispatch step failed; the next sweep retries", e);
        } finally {
            oneStepAtATime.unlock();
        }
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        watch.stop();
        ScheduledFuture<?> sweeping = sweep;
        if (sweeping != null) {
            sweeping.cancel(false);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Started before leader election (whose first event it must not miss) and stopped after it. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 2048;
    }
}
