package app.talkide.controlplane.provisioning.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.provisioning.RecordingReconciler;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler.ReconcileResult;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * What the leader reconciles and when: every tenant-environment on resync, one at once on a change. This replica
 * leads throughout: a lease it could lose to a stall of a loaded machine (it once had a 2 s renew deadline) made
 * it lose and regain leadership, and gaining leadership resyncs every tenant-environment at once, a pass the
 * counts here would take for a retry or a second change.
 */
@DatabaseTest
@EnableKubernetesMockClient(crud = true)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.leader.lease-duration=120s",
            "talkide.provisioning.leader.renew-deadline=60s",
            "talkide.provisioning.leader.retry-period=200ms",
            "talkide.provisioning.schedule.resync-interval=1h",
            "talkide.provisioning.schedule.change-poll-interval=100ms",
            "talkide.provisioning.schedule.initial-backoff=50ms",
            "talkide.provisioning.schedule.max-backoff=200ms"
        })
class ReconcileSchedulerTest {

    static KubernetesClient client;

    @Autowired
    ApplicationContext context;

    @Autowired
    ReconcileScheduler scheduler;

    @Autowired
    RecordingReconciler reconciler;

    @Autowired
    LeaderElection leaderElection;

    @Autowired
    ApplicationEventPublisher events;

    @Autowired
    ReconcileRequests requests;

    @Autowired
    TenantEnvironments tenantEnvironments;

    @Autowired
    MeterRegistry meters;

    @BeforeEach
    void setUp() {
        await().atMost(Duration.ofSeconds(10)).until(leaderElection::isLeader);
        reconciler.behaviour = id -> new ReconcileResult(0, null);
    }

    @Test
    void resyncReconcilesEveryTenantEnvironment() {
        List<TenantEnvironmentId> created = List.of(
                Fixtures.tenantEnvironment(context),
                Fixtures.tenantEnvironment(context),
                Fixtures.tenantEnvironment(context));

        scheduler.resyncAll();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (var environment : tenantEnvironments.all()) {
                assertThat(reconciler.count(environment.id()))
                        .as("%s", environment.id())
                        .isGreaterThanOrEqualTo(1);
            }
        });
        assertThat(reconciler.reconciled).containsAll(created);
    }

    @Test
    void desiredStateChangeReconcilesThatTenantEnvironmentAtOnce() {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);

        events.publishEvent(new DesiredStateChanged(acme));

        await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.count(acme) == 1);
    }

    @Test
    void changeRecordedByAReplicaThatDoesNotLeadIsPickedUpByTheLeader() {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);

        requests.add(acme, java.time.Instant.now());

        await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.count(acme) == 1);
        assertThat(requests.takeAll()).doesNotContain(acme);
    }

    @Test
    void changesDuringAPassRunOnceMoreAfterItNeverAlongside() throws Exception {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);
        CountDownLatch release = new CountDownLatch(1);
        reconciler.behaviour = id -> {
            if (id.equals(acme) && reconciler.count(acme) == 1) {
                await().atMost(Duration.ofSeconds(10)).until(() -> release.getCount() == 0);
            }
            return new ReconcileResult(0, null);
        };

        scheduler.request(acme, ReconcileScheduler.Trigger.CHANGE);
        await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.count(acme) == 1);
        for (int i = 0; i < 5; i++) {
            events.publishEvent(new DesiredStateChanged(acme));
        }
        release.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.count(acme) == 2);
        assertThat(reconciler.overlapping).hasValue(0);
    }

    @Test
    void aPassThatHitATransientApiErrorIsRetriedWithBackoffWithoutWaitingForTheResync() {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);
        AtomicInteger attempts = new AtomicInteger();
        reconciler.behaviour = id -> id.equals(acme) && attempts.incrementAndGet() < 3
                ? new ReconcileResult(1, "Could not apply Deployment talkide-worker: HTTP 429 Too Many Requests", true)
                : new ReconcileResult(0, null);

        scheduler.request(acme, ReconcileScheduler.Trigger.CHANGE);

        // The resync interval is an hour: only the backoff retry can make the second and third attempts.
        await().atMost(Duration.ofSeconds(30)).until(() -> attempts.get() == 3);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> meters.get("talkide.provisioning.reconcile.failing")
                                .gauge()
                                .value()
                        == 0.0);
        assertThat(attempts).hasValue(3);
    }

    @Test
    void aDegradedPassThatNeedsAPersonIsNotRetried() {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);
        AtomicInteger attempts = new AtomicInteger();
        reconciler.behaviour = id -> {
            if (id.equals(acme)) {
                attempts.incrementAndGet();
                return new ReconcileResult(0, "HTTP 403 forbidden", false);
            }
            return new ReconcileResult(0, null);
        };

        scheduler.request(acme, ReconcileScheduler.Trigger.CHANGE);
        await().atMost(Duration.ofSeconds(30)).until(() -> attempts.get() == 1);
        // A retry would come after 50 ms (initial-backoff); ten times that passes without one.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30)).until(() -> attempts.get() == 1);
    }

    @Test
    void failingReconcileIsRetriedWithBackoffAndCounted() {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);
        AtomicInteger attempts = new AtomicInteger();
        reconciler.behaviour = id -> {
            if (id.equals(acme) && attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("API server unreachable");
            }
            return new ReconcileResult(0, null);
        };

        scheduler.request(acme, ReconcileScheduler.Trigger.CHANGE);

        await().atMost(Duration.ofSeconds(30)).until(() -> attempts.get() == 3);
        assertThat(meters.get("talkide.provisioning.reconcile.duration").tag("outcome", "error").timers().stream()
                        .mapToLong(io.micrometer.core.instrument.Timer::count)
                        .sum())
                .isGreaterThanOrEqualTo(2);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> meters.get("talkide.provisioning.reconcile.failing")
                                .gauge()
                                .value()
                        == 0.0);
    }

    @Test
    void aResyncThatWritesIsNotCountedAgainByTheSchedulerTheReconcilerCountsDrift() {
        TenantEnvironmentId acme = Fixtures.tenantEnvironment(context);
        scheduler.request(acme, ReconcileScheduler.Trigger.CHANGE);
        await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.count(acme) == 1);
        double before = driftRepairs();
        reconciler.behaviour = id -> new ReconcileResult(id.equals(acme) ? 2 : 0, null);

        scheduler.request(acme, ReconcileScheduler.Trigger.RESYNC);

        await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.count(acme) == 2);
        // This reconciler counts nothing, so anything added now would have been added by the scheduler.
        assertThat(driftRepairs()).isEqualTo(before);
    }

    private double driftRepairs() {
        var counter = meters.find("talkide.provisioning.drift.repairs").counter();
        return counter == null ? 0 : counter.count();
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        @Primary
        KubernetesClient mockKubernetesClient() {
            return client;
        }

        @Bean
        RecordingReconciler reconciler() {
            return new RecordingReconciler();
        }
    }
}
