package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.BuildPlacements;
import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.provisioning.McpServerLists;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentBeingDeleted;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.identity.IdentityTokens;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The desired state of every tenant-environment, in every mode. Changes are committed first and announced
 * with {@link DesiredStateChanged} afterwards, so a reconcile triggered by the event reads what was stored.
 * Deleting marks the tenant-environment {@code DELETING} for the reconciler to tear down; without one (local
 * mode) there is nothing in a cluster, so it is {@code DELETED} at once.
 */
@Service
public class DesiredStates implements BuildPlacements, McpServerLists {

    private final TenantEnvironments tenantEnvironments;
    private final DesiredStateRepository repository;
    private final ProvisioningProperties properties;
    private final ReservedNamespaces reserved;
    private final IdentityTokens identityTokens;
    private final ObjectProvider<TenantEnvironmentReconciler> reconciler;
    private final ApplicationEventPublisher events;
    private final TransactionTemplate transactions;
    private final Clock clock;

    DesiredStates(
            TenantEnvironments tenantEnvironments,
            DesiredStateRepository repository,
            ProvisioningProperties properties,
            IdentityTokens identityTokens,
            ObjectProvider<TenantEnvironmentReconciler> reconciler,
            ApplicationEventPublisher events,
            TransactionTemplate transactions,
            Clock clock) {
        this.tenantEnvironments = tenantEnvironments;
        this.repository = repository;
        this.properties = properties;
        DesiredStateValidator.validateDefaults(properties.defaults());
        this.reserved = new ReservedNamespaces(properties);
        this.identityTokens = identityTokens;
        this.reconciler = reconciler;
        this.events = events;
        this.transactions = transactions;
        this.clock = clock;
    }

    /** Sets the desired state, registering the tenant-environment (or bringing a deleted one back). */
    public TenantEnvironmentView put(TenantEnvironmentId id, DesiredStateSpec spec) {
        reserved.check(id);
        DesiredStateValidator.validate(spec);
        DesiredStateValidator.surgeFits(spec.resolve(properties));
        boolean changed = Boolean.TRUE.equals(transactions.execute(status -> {
            TenantEnvironment environment = tenantEnvironments.register(id);
            boolean revived = false;
            switch (environment.status()) {
                case DELETING ->
                    throw new TenantEnvironmentBeingDeleted(
                            id, TenantEnvironmentStatus.DELETING, "set its desired state again once it is DELETED.");
                case DELETED -> {
                    tenantEnvironments.changeStatus(id, TenantEnvironmentStatus.PROVISIONING, null);
                    revived = true;
                }
                default -> {}
            }
            return repository.save(id, spec, clock.instant()) || revived;
        }));
        if (changed) {
            events.publishEvent(new DesiredStateChanged(id));
        }
        return get(id);
    }

    /**
     * Replaces the worker's MCP servers of an existing tenant-environment; announced like any desired-state
     * change, so the reconciler (or local mode) hands the new list to the worker.
     */
    public List<McpServer> putMcpServers(TenantEnvironmentId id, List<McpServer> servers) {
        McpServerRules.validate(servers);
        boolean changed = Boolean.TRUE.equals(transactions.execute(status -> {
            TenantEnvironment environment = tenantEnvironments.get(id);
            if (environment.status() == TenantEnvironmentStatus.DELETING
                    || environment.status() == TenantEnvironmentStatus.DELETED) {
                throw new TenantEnvironmentBeingDeleted(
                        id,
                        environment.status(),
                        "its MCP servers are not changed now; bring it back with PUT once it is DELETED.");
            }
            return repository.saveMcpServers(id, servers, clock.instant());
        }));
        if (changed) {
            events.publishEvent(new DesiredStateChanged(id));
        }
        return mcpServers(id);
    }

    @Override
    public List<McpServer> mcpServers(TenantEnvironmentId id) {
        return record(id).mcpServers();
    }

    public TenantEnvironmentView get(TenantEnvironmentId id) {
        return view(tenantEnvironments.get(id));
    }

    public List<TenantEnvironmentView> all() {
        return tenantEnvironments.all().stream().map(this::view).toList();
    }

    /**
     * Starts tearing the tenant-environment down: its identity tokens stop working now, its objects go with the
     * next reconcile pass (at once where no cluster is managed).
     */
    public TenantEnvironmentView delete(TenantEnvironmentId id) {
        TenantEnvironment environment = tenantEnvironments.get(id);
        if (environment.status() == TenantEnvironmentStatus.DELETED) {
            return view(environment);
        }
        boolean inCluster = properties.enabled() && reconciler.getIfAvailable() != null;
        transactions.executeWithoutResult(status -> {
            identityTokens.revokeAll(id);
            if (inCluster) {
                tenantEnvironments.changeStatus(id, TenantEnvironmentStatus.DELETING, "deletion requested");
            } else {
                finishDeletion(id);
            }
        });
        if (inCluster) {
            events.publishEvent(new DesiredStateChanged(id));
        }
        return get(id);
    }

    /** The stored desired state and bookkeeping; a tenant-environment never given one follows the defaults. */
    public DesiredStateRecord record(TenantEnvironmentId id) {
        return repository.find(id).orElseGet(DesiredStateRecord::unset);
    }

    @Override
    public BuildPlacement buildPlacement(TenantEnvironmentId id) {
        BuildPlacement placement = record(id).spec().buildPlacement();
        return placement == null ? BuildPlacement.UNSET : placement;
    }

    public DesiredState resolve(DesiredStateRecord record) {
        return record.spec().resolve(properties).withMcpServers(record.mcpServers());
    }

    public boolean isReserved(TenantEnvironmentId id) {
        return reserved.isReserved(id);
    }

    /** Records a finished reconcile pass: which generation is in the cluster and how much drift was repaired. */
    public void recordPass(TenantEnvironmentId id, long appliedGeneration, int driftRepairs) {
        repository.recordPass(id, appliedGeneration, driftRepairs, clock.instant());
    }

    /** Everything is gone from the cluster: the desired state goes too and the record says DELETED. */
    public void finishDeletion(TenantEnvironmentId id) {
        transactions.executeWithoutResult(status -> {
            repository.delete(id);
            tenantEnvironments.changeStatus(id, TenantEnvironmentStatus.DELETED, null);
        });
    }

    private TenantEnvironmentView view(TenantEnvironment environment) {
        DesiredStateRecord record = record(environment.id());
        return TenantEnvironmentView.of(environment, record, resolve(record));
    }
}
