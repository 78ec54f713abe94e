package app.talkide.controlplane.provisioning.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Competes for the provisioning Lease with fabric8's {@code LeaderElector} and tells the rest of
 * provisioning ({@link LeadershipChanged}) when this replica starts or stops leading. A fabric8 elector
 * ends for good once it stops leading, so a fresh one is started after every loss: a replica that lost
 * the Lease (e.g. a network partition) becomes a candidate again. On shutdown the Lease is released,
 * so another replica takes over within one retry period instead of a whole lease duration.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "kubernetes")
public class LeaderElection implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    private final KubernetesClient client;
    private final LeaderElectionProperties properties;
    private final ApplicationEventPublisher events;
    private final String identity;
    private final String namespace;
    private final AtomicBoolean leading = new AtomicBoolean();
    private final ExecutorService executor = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("leader-election").factory());
    private volatile boolean running;
    private volatile @Nullable CompletableFuture<?> election;

    LeaderElection(
            KubernetesClient client,
            LeaderElectionProperties properties,
            ApplicationEventPublisher events,
            MeterRegistry meters) {
        this.client = client;
        this.properties = properties;
        this.events = events;
        this.identity = LeaderIdentity.resolve(properties.identity());
        this.namespace = LeaderIdentity.leaseNamespace(properties.leaseNamespace(), client.getNamespace());
        meters.gauge("talkide.provisioning.leader", leading, value -> value.get() ? 1 : 0);
    }

    public boolean isLeader() {
        return leading.get();
    }

    public String identity() {
        return identity;
    }

    @Override
    public void start() {
        running = true;
        log.info("Leader election for provisioning: Lease {}/{} as '{}'", namespace, properties.leaseName(), identity);
        compete();
    }

    private void compete() {
        var config = new LeaderElectionConfigBuilder()
                .withName(properties.leaseName())
                .withLock(new LeaseLock(namespace, properties.leaseName(), identity))
                .withLeaseDuration(properties.leaseDuration())
                .withRenewDeadline(properties.renewDeadline())
                .withRetryPeriod(properties.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::started, this::stopped, this::observed))
                .build();
        CompletableFuture<?> current =
                client.leaderElector().withConfig(config).build().start();
        election = current;
        current.whenComplete((ignored, failure) -> {
            if (failure != null && !current.isCancelled()) {
                log.warn("Leader election ended with an error; competing again", failure);
            }
            stopped();
            if (running) {
                executor.execute(this::compete);
            }
        });
    }

    private void started() {
        if (leading.compareAndSet(false, true)) {
            log.info("This replica ('{}') now leads provisioning", identity);
            events.publishEvent(new LeadershipChanged(true, identity));
        }
    }

    private void stopped() {
        if (leading.compareAndSet(true, false)) {
            log.info("This replica ('{}') no longer leads provisioning", identity);
            events.publishEvent(new LeadershipChanged(false, identity));
        }
    }

    private void observed(String leader) {
        log.debug("Provisioning leader is now '{}'", leader);
    }

    @Override
    public void stop() {
        running = false;
        CompletableFuture<?> current = election;
        if (current != null) {
            // Cancelling releases the Lease (release-on-cancel) and calls back stopped().
            current.cancel(true);
        }
        stopped();
        executor.shutdownNow();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Started late and stopped early, so every reconcile on the leader has its beans around it. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1024;
    }
}
