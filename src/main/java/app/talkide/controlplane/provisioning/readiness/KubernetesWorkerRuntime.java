package app.talkide.controlplane.provisioning.readiness;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.tenant.InvalidTenantEnvironmentName;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import app.talkide.controlplane.worker.WorkerRuntime;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The {@code kubernetes} worker runtime. Every replica runs one informer on the managed worker
 * Deployments in all namespaces (one list, then a watch: no polling per tenant-environment), keeps each
 * worker's readiness from it, answers {@link #locate} from memory, and publishes
 * {@link WorkerReadinessChanged} whenever a worker's readiness or its reason changes.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
public class KubernetesWorkerRuntime implements WorkerRuntime, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(KubernetesWorkerRuntime.class);

    private final KubernetesClient client;
    private final ReadinessProperties properties;
    private final ApplicationEventPublisher events;
    private final Map<TenantEnvironmentId, DeploymentReadiness.Observed> observed = new ConcurrentHashMap<>();
    private volatile @Nullable SharedIndexInformer<Deployment> informer;

    KubernetesWorkerRuntime(
            KubernetesClient client,
            ReadinessProperties properties,
            ApplicationEventPublisher events,
            MeterRegistry meters) {
        this.client = client;
        this.properties = properties;
        this.events = events;
        for (WorkerReadiness readiness : WorkerReadiness.values()) {
            Gauge.builder("talkide.provisioning.worker.readiness", observed, map -> count(map, readiness))
                    .description("Workers by readiness, as the Deployment informer sees them")
                    .tag("readiness", readiness.name().toLowerCase(java.util.Locale.ROOT))
                    .register(meters);
        }
    }

    @Override
    public WorkerLocation locate(TenantEnvironmentId tenantEnvironment) {
        URI baseUrl = URI.create("http://" + ManagedNames.WORKER + "." + ManagedNames.namespaceOf(tenantEnvironment)
                + ".svc." + properties.serviceDomain() + ":" + ManagedNames.WORKER_PORT);
        SharedIndexInformer<Deployment> current = informer;
        if (current == null || !current.hasSynced()) {
            return new WorkerLocation(
                    tenantEnvironment,
                    baseUrl,
                    WorkerReadiness.STARTING,
                    "The control plane is still reading the workers' state.");
        }
        DeploymentReadiness.Observed state = observed.getOrDefault(tenantEnvironment, DeploymentReadiness.of(null));
        return new WorkerLocation(tenantEnvironment, baseUrl, state.readiness(), state.detail());
    }

    /** What the informer currently knows, for the leader's status writer. */
    Map<TenantEnvironmentId, DeploymentReadiness.Observed> snapshot() {
        return Map.copyOf(observed);
    }

    @Override
    public void start() {
        SharedIndexInformer<Deployment> started = client.apps()
                .deployments()
                .inAnyNamespace()
                .withLabel(ManagedNames.MANAGED_BY_LABEL, ManagedNames.MANAGED_BY)
                .runnableInformer(properties.informerResync().toMillis());
        started.addEventHandler(new Handler());
        informer = started;
        // Not waited for: start-up must not hang on the API server; locate says "starting" until synced.
        started.start().whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.warn("The worker Deployment informer could not start; it keeps retrying", failure);
            } else {
                log.info("Worker Deployment informer synced: {} workers", observed.size());
            }
        });
    }

    @Override
    public void stop() {
        SharedIndexInformer<Deployment> current = informer;
        informer = null;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public boolean isRunning() {
        return informer != null;
    }

    private void update(Deployment deployment, DeploymentReadiness.Observed now) {
        tenantEnvironmentOf(deployment).ifPresent(id -> {
            DeploymentReadiness.Observed before = observed.put(id, now);
            if (!now.equals(before)) {
                log.debug("Worker of {}: {} ({})", id, now.readiness(), now.detail());
                events.publishEvent(new WorkerReadinessChanged(id, now.readiness(), now.detail()));
            }
        });
    }

    private static Optional<TenantEnvironmentId> tenantEnvironmentOf(Deployment deployment) {
        if (!ManagedNames.WORKER.equals(deployment.getMetadata().getName())) {
            return Optional.empty();
        }
        Map<String, String> labels = deployment.getMetadata().getLabels();
        if (labels == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    TenantEnvironmentId.of(labels.get(ManagedNames.TENANT_LABEL), labels.get(ManagedNames.ENV_LABEL)));
        } catch (InvalidTenantEnvironmentName e) {
            // Labelled as ours but not named like ours: nothing we provisioned, so nothing to report.
            return Optional.empty();
        }
    }

    private static double count(Map<TenantEnvironmentId, DeploymentReadiness.Observed> map, WorkerReadiness readiness) {
        return map.values().stream().filter(o -> o.readiness() == readiness).count();
    }

    private final class Handler implements ResourceEventHandler<Deployment> {

        @Override
        public void onAdd(Deployment deployment) {
            update(deployment, DeploymentReadiness.of(deployment));
        }

        @Override
        public void onUpdate(Deployment before, Deployment after) {
            update(after, DeploymentReadiness.of(after));
        }

        @Override
        public void onDelete(Deployment deployment, boolean finalStateUnknown) {
            update(
                    deployment,
                    new DeploymentReadiness.Observed(WorkerReadiness.UNAVAILABLE, "The worker's Deployment is gone."));
        }
    }
}
