package app.talkide.controlplane.provisioning.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

    /** How long shutdown waits for the leader's Lease release: a healthy API server answers in milliseconds. */
    static final Duration RELEASE_WAIT = Duration.ofSeconds(3);

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
        boolean mayHoldLease = leading.get();
        stopped();
        CompletableFuture<?> current = election;
        if (current != null) {
            // Cancelling releases the Lease (release-on-cancel), but fabric8 does so under the elector's lock,
            // which an API call in flight holds through all its retries: with the API server unreachable (or no
            // cluster at all) that is many seconds, and every pod stop waited for it. So the cancel runs on the
            // election's thread; shutdown waits for it only while this replica may hold the Lease, and at most
            // RELEASE_WAIT. A Lease not released in time expires after lease-duration, as after a crash.
            CompletableFuture<Void> cancelled = CompletableFuture.runAsync(() -> current.cancel(true), executor);
            if (mayHoldLease) {
                awaitRelease(cancelled);
            }
        }
        executor.shutdown();
    }

    private void awaitRelease(CompletableFuture<Void> cancelled) {
        try {
            cancelled.get(RELEASE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("Provisioning Lease not released within {}; it expires on its own", RELEASE_WAIT);
        } catch (ExecutionException e) {
            log.warn("Provisioning Lease not released; it expires on its own", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
