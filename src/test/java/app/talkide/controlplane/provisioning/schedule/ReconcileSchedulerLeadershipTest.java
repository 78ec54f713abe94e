package app.talkide.controlplane.provisioning.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.provisioning.RecordingReconciler;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler.ReconcileResult;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Passes queued for a permit when this replica stops leading are dropped, not run: the new leader
 * reconciles those tenant-environments, and two replicas must never write the same objects at once.
 * A class of its own: the test ends this replica's part in the election, which its context cannot undo.
 */
@DatabaseTest
@DirtiesContext
@EnableKubernetesMockClient(crud = true)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.leader.lease-duration=3s",
            "talkide.provisioning.leader.renew-deadline=2s",
            "talkide.provisioning.leader.retry-period=200ms",
            "talkide.provisioning.schedule.resync-interval=1h",
            "talkide.provisioning.schedule.max-concurrent=1"
        })
class ReconcileSchedulerLeadershipTest {

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
    MeterRegistry meters;

    @Test
    void passesQueuedWhenLeadershipGoesAreNotRun() {
        await().atMost(Duration.ofSeconds(10)).until(leaderElection::isLeader);
        TenantEnvironmentId running = Fixtures.tenantEnvironment(context);
        TenantEnvironmentId queuedA = Fixtures.tenantEnvironment(context);
        TenantEnvironmentId queuedB = Fixtures.tenantEnvironment(context);
        CountDownLatch release = new CountDownLatch(1);
        reconciler.behaviour = id -> {
            if (id.equals(running)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> release.getCount() == 0);
            }
            return new ReconcileResult(0, null);
        };
        scheduler.request(running, ReconcileScheduler.Trigger.CHANGE);
        await().atMost(Duration.ofSeconds(5)).until(() -> reconciler.count(running) == 1);
        scheduler.request(queuedA, ReconcileScheduler.Trigger.CHANGE);
        scheduler.request(queuedB, ReconcileScheduler.Trigger.CHANGE);
        await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 2);

        leaderElection.stop();
        release.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 0);
        assertThat(reconciler.count(queuedA)).isZero();
        assertThat(reconciler.count(queuedB)).isZero();
    }

    private double queued() {
        return meters.get("talkide.provisioning.reconcile.queued").gauge().value();
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
