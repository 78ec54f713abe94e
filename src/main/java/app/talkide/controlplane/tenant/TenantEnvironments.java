package app.talkide.controlplane.tenant;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The tenant-environments this control plane knows about. */
@Service
public class TenantEnvironments {

    private final TenantEnvironmentRepository repository;
    private final ApplicationEventPublisher events;
    private final Clock clock;

    TenantEnvironments(TenantEnvironmentRepository repository, ApplicationEventPublisher events, Clock clock) {
        this.repository = repository;
        this.events = events;
        this.clock = clock;
    }

    /**
     * Records the tenant-environment if it is new; idempotent.
     *
     * @throws NamespaceTaken if another name already has its namespace ({@code a-b/c} and {@code a/b-c})
     */
    @Transactional
    public TenantEnvironment register(TenantEnvironmentId id) {
        repository.insertIfAbsent(id, TenantEnvironmentStatus.PROVISIONING, clock.instant());
        return repository
                .find(id)
                .orElseThrow(() -> new NamespaceTaken(
                        id, repository.holderOf(id.namespace()).orElse(null)));
    }

    public Optional<TenantEnvironment> find(TenantEnvironmentId id) {
        return repository.find(id);
    }

    public TenantEnvironment get(TenantEnvironmentId id) {
        return repository.find(id).orElseThrow(() -> new TenantEnvironmentNotFound(id));
    }

    public List<TenantEnvironment> all() {
        return repository.findAll();
    }

    @Transactional
    public void changeStatus(TenantEnvironmentId id, TenantEnvironmentStatus status) {
        changeStatus(id, status, null);
    }

    /**
     * Sets the status and the reason for it; returns whether anything changed (the same status and reason
     * again write nothing, so reconcile passes in a steady state leave the row alone). Going to
     * {@code DELETING} or {@code DELETED} publishes {@link TenantEnvironmentClosed}, so that caches of who
     * may act here forget it at once.
     */
    @Transactional
    public boolean changeStatus(TenantEnvironmentId id, TenantEnvironmentStatus status, @Nullable String reason) {
        boolean changed = repository.updateStatus(id, status, reason, clock.instant());
        if (changed && (status == TenantEnvironmentStatus.DELETING || status == TenantEnvironmentStatus.DELETED)) {
            events.publishEvent(new TenantEnvironmentClosed(id));
        }
        return changed;
    }

    /**
     * Records a reconcile pass's outcome (ready, provisioning, degraded, with its reason) unless the
     * tenant-environment is being deleted or is gone: a deletion requested while the pass ran stays.
     * Returns whether anything changed.
     */
    @Transactional
    public boolean reconciled(TenantEnvironmentId id, TenantEnvironmentStatus status, @Nullable String reason) {
        return repository.updateStatusUnlessDeleting(id, status, reason, clock.instant());
    }

    /**
     * Records what was observed of the worker (ready, starting, unavailable), unless the tenant-environment
     * is being deleted or is gone; returns whether anything changed.
     */
    @Transactional
    public boolean observeWorker(TenantEnvironmentId id, TenantEnvironmentStatus status) {
        return repository.updateStatusUnlessDeleting(id, status, clock.instant());
    }
}
