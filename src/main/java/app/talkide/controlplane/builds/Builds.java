package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.WorkerPrincipal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Builds: queued on a worker's request (any replica), dispatched, watched and finished by the leader
 * ({@code job}), cancelled from anywhere. A build belongs to the conversation whose WorkerToken asked for
 * it; other conversations get 404 for it. Metrics: {@code talkide.builds.queue.time},
 * {@code talkide.builds.run.time} and {@code talkide.builds.finished}, by kind and outcome.
 */
@Service
public class Builds {

    private final BuildRepository repository;
    private final BuildProperties properties;
    private final ApplicationEventPublisher events;
    private final Clock clock;
    private final MeterRegistry meters;
    private final boolean kubernetes;

    Builds(
            BuildRepository repository,
            BuildProperties properties,
            ApplicationEventPublisher events,
            Clock clock,
            MeterRegistry meters,
            @Value("${talkide.worker.runtime:local}") String runtime) {
        this.repository = repository;
        this.properties = properties;
        this.events = events;
        this.clock = clock;
        this.meters = meters;
        this.kubernetes = "kubernetes".equals(runtime);
    }

    /** Whether this control plane runs builds at all (the gate adds a build to its check only then). */
    public boolean enabled() {
        return properties.enabled() && kubernetes;
    }

    @Transactional
    public BuildView submit(WorkerPrincipal worker, BuildRequest request) {
        if (!enabled()) {
            throw new BuildProblems.BuildsDisabled(
                    "This control plane runs no builds (talkide.builds.enabled, kubernetes runtime).");
        }
        TenantEnvironmentId in = worker.tenantEnvironment();
        BuildSpec spec = request.validate(in.tenant(), in.env(), properties.image());
        if (spec.kind() == BuildKind.IMAGE && !properties.image().configured()) {
            throw new BuildProblems.BuildsDisabled(
                    "Image builds are not configured here (talkide.builds.image.builder-image, registry-prefix).");
        }
        if (repository.count(in, BuildState.QUEUED) >= properties.maxQueued()) {
            throw new BuildProblems.BuildQueueFull(properties.maxQueued());
        }
        UUID id = UUID.randomUUID();
        repository.insert(id, in, worker.conversationId(), worker.userId(), spec, clock.instant());
        events.publishEvent(new BuildRequested(id, in));
        return view(repository.find(id).orElseThrow());
    }

    public BuildView get(WorkerPrincipal worker, UUID id) {
        return view(ownBuild(worker, id));
    }

    /** Build of the caller's conversation, else 404. */
    public Build ownBuild(WorkerPrincipal worker, UUID id) {
        return repository
                .find(id)
                .filter(build -> worker.actsFor(build.conversationId()))
                .filter(build -> build.tenantEnvironment().equals(worker.tenantEnvironment()))
                .orElseThrow(BuildProblems.BuildNotFound::new);
    }

    /** Cancels a queued or running build; a finished one stays as it is. Idempotent. */
    public BuildView cancel(WorkerPrincipal worker, UUID id) {
        cancel(ownBuild(worker, id), "cancelled by the worker");
        return view(repository.find(id).orElseThrow());
    }

    /** Cancels every queued and running build of the tenant-environment (it is being deleted). */
    void cancelAll(TenantEnvironmentId in, String reason) {
        repository.unfinished(in).forEach(build -> cancel(build, reason));
    }

    private void cancel(Build build, String reason) {
        for (BuildState from : List.of(BuildState.QUEUED, BuildState.RUNNING)) {
            if (finish(build, from, BuildState.CANCELLED, reason)) {
                if (from == BuildState.RUNNING) {
                    // Re-read: a build claimed since the list was read has its Job name only in the row.
                    String job = repository.find(build.id()).map(Build::jobName).orElse(build.jobName());
                    events.publishEvent(new BuildCancelled(build.id(), build.tenantEnvironment(), job));
                }
                break;
            }
        }
    }

    public Optional<Build> find(UUID id) {
        return repository.find(id);
    }

    public BuildView view(Build build) {
        return BuildView.of(build, repository.queuePosition(build), clock.instant());
    }

    /** The conversation's builds, newest first. */
    public List<Build> ofConversation(UUID conversationId) {
        return repository.ofConversation(conversationId);
    }

    public List<BuildView> ofTenantEnvironment(TenantEnvironmentId in, long before, int limit) {
        return repository.ofTenantEnvironment(in, before, limit).stream()
                .map(this::view)
                .toList();
    }

    // What the leader's dispatcher uses (package job).

    public int running(TenantEnvironmentId in) {
        return repository.count(in, BuildState.RUNNING);
    }

    public List<Build> running() {
        return repository.inState(BuildState.RUNNING);
    }

    public List<TenantEnvironmentId> withQueued() {
        return repository.withQueued();
    }

    /** Moves the oldest queued build of the tenant-environment to RUNNING (its Job is created next). */
    public Optional<Build> claimNext(TenantEnvironmentId in) {
        Optional<Build> claimed = repository.claimNext(in, clock.instant());
        claimed.ifPresent(build -> Timer.builder("talkide.builds.queue.time")
                .description("Time from a build's request until its Job was dispatched")
                .tag("kind", build.spec().kind().wireName())
                .register(meters)
                .record(Duration.between(build.createdAt(), build.startedAt())));
        return claimed;
    }

    /**
     * Ends a build that is in {@code from}; false if it was not (someone else ended it first). Publishes
     * {@link BuildFinished} and records the outcome.
     */
    public boolean finish(Build build, BuildState from, BuildState to, @Nullable String reason) {
        Instant now = clock.instant();
        if (!repository.transition(build.id(), from, to, reason, now)) {
            return false;
        }
        String kind = build.spec().kind().wireName();
        String outcome = to.name().toLowerCase(java.util.Locale.ROOT);
        Counter.builder("talkide.builds.finished")
                .description("Builds that reached a final state")
                .tag("kind", kind)
                .tag("outcome", outcome)
                .register(meters)
                .increment();
        if (build.startedAt() != null) {
            Timer.builder("talkide.builds.run.time")
                    .description("Time from a build's dispatch until it ended")
                    .tag("kind", kind)
                    .tag("outcome", outcome)
                    .register(meters)
                    .record(Duration.between(build.startedAt(), now));
        }
        events.publishEvent(new BuildFinished(build.id(), build.tenantEnvironment(), to));
        return true;
    }
}
