package app.talkide.controlplane.provisioning.readiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.RecordingReconciler;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.context.event.EventListener;

/**
 * Readiness as the informer sees it: Deployment status written to the (mock) API server turns into
 * what {@code locate} answers, into {@link WorkerReadinessChanged} events (which the worker side turns
 * into {@code worker.status} for browsers), into the tenant-environment status and the gauge.
 */
@EnableKubernetesMockClient(crud = true)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.leader.lease-duration=3s",
            "talkide.provisioning.leader.renew-deadline=2s",
            "talkide.provisioning.leader.retry-period=200ms",
            "talkide.provisioning.schedule.resync-interval=1h"
        })
class KubernetesWorkerRuntimeTest {

    static KubernetesClient client;

    @Autowired
    ApplicationContext context;

    @Autowired
    WorkerLocator locator;

    @Autowired
    TenantEnvironments tenantEnvironments;

    @Autowired
    LeaderElection leaderElection;

    @Autowired
    EventLog events;

    @Autowired
    MeterRegistry meters;

    TenantEnvironmentId acme;

    @BeforeEach
    void setUp() {
        acme = Fixtures.tenantEnvironment(context);
        await().atMost(Duration.ofSeconds(10)).until(leaderElection::isLeader);
    }

    @Test
    void workerBecomesReadyWhenItsDeploymentReportsAnAvailableReplica() {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !locator.locate(acme).detail().contains("still reading"));
        assertThat(locator.locate(acme).readiness()).isEqualTo(WorkerReadiness.STARTING);
        assertThat(locator.locate(acme).baseUrl())
                .hasToString("http://talkide-worker." + acme.namespace() + ".svc.cluster.local:8080");

        create(workerDeployment(acme));
        await().atMost(Duration.ofSeconds(10)).until(() -> events.of(acme).contains(WorkerReadiness.STARTING));

        setStatus(acme, 1, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> locator.locate(acme).isReady());
        assertThat(events.of(acme)).containsExactly(WorkerReadiness.STARTING, WorkerReadiness.READY);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> tenantEnvironments.get(acme).status() == TenantEnvironmentStatus.READY);
        assertThat(meters.get("talkide.provisioning.worker.readiness")
                        .tag("readiness", "ready")
                        .gauge()
                        .value())
                .isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void workerThatLosesItsLastPodGoesBackToStartingAndAFailedRolloutIsUnavailable() {
        create(workerDeployment(acme));
        setStatus(acme, 1, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> locator.locate(acme).isReady());

        setStatus(acme, 0, 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> locator.locate(acme).readiness() == WorkerReadiness.STARTING);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> tenantEnvironments.get(acme).status() == TenantEnvironmentStatus.PROVISIONING);

        Deployment stuck = deployment(acme);
        stuck.getStatus()
                .setConditions(List.of(DeploymentReadinessTest.condition(
                        "Progressing", "False", "ProgressDeadlineExceeded", "image pull back-off")));
        client.apps().deployments().resource(stuck).updateStatus();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> locator.locate(acme).readiness() == WorkerReadiness.UNAVAILABLE);
        WorkerLocation location = locator.locate(acme);
        assertThat(location.detail()).contains("image pull back-off");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> tenantEnvironments.get(acme).status() == TenantEnvironmentStatus.DEGRADED);
    }

    @Test
    void deletedDeploymentMakesTheWorkerUnavailable() {
        create(workerDeployment(acme));
        setStatus(acme, 1, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> locator.locate(acme).isReady());

        client.apps()
                .deployments()
                .inNamespace(acme.namespace())
                .withName(ManagedNames.WORKER)
                .delete();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> locator.locate(acme).readiness() == WorkerReadiness.UNAVAILABLE);
    }

    @Test
    void deploymentsNotManagedByUsAreIgnored() {
        Deployment foreign = new DeploymentBuilder(workerDeployment(acme))
                .editMetadata()
                .addToLabels(ManagedNames.MANAGED_BY_LABEL, "someone-else")
                .endMetadata()
                .build();
        create(foreign);
        setStatus(acme, 1, 1);
        TenantEnvironmentId other = Fixtures.tenantEnvironment(context);
        create(workerDeployment(other));
        await().atMost(Duration.ofSeconds(10)).until(() -> events.of(other).contains(WorkerReadiness.STARTING));

        assertThat(events.of(acme)).isEmpty();
        assertThat(locator.locate(acme).isReady()).isFalse();
    }

    private static void create(Deployment deployment) {
        client.apps().deployments().resource(deployment).create();
    }

    private static Deployment deployment(TenantEnvironmentId id) {
        return client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .get();
    }

    private static void setStatus(TenantEnvironmentId id, int available, int updated) {
        Deployment current = deployment(id);
        current.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder()
                .withObservedGeneration(current.getMetadata().getGeneration())
                .withReplicas(1)
                .withAvailableReplicas(available)
                .withUpdatedReplicas(updated)
                .build());
        client.apps().deployments().resource(current).updateStatus();
    }

    static Deployment workerDeployment(TenantEnvironmentId id) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(ManagedNames.WORKER)
                .withNamespace(id.namespace())
                .withLabels(ManagedNames.labelsOf(id))
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(ManagedNames.labelsOf(id))
                .endMetadata()
                .endTemplate()
                .endSpec()
                .build();
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        @Primary
        KubernetesClient mockKubernetesClient() {
            return client;
        }

        @Bean
        TenantEnvironmentReconciler reconciler() {
            return new RecordingReconciler();
        }

        @Bean
        EventLog eventLog() {
            return new EventLog();
        }
    }

    /** Readiness events as published, from whatever thread the informer delivers on. */
    static class EventLog {

        final List<WorkerReadinessChanged> seen = new CopyOnWriteArrayList<>();

        @EventListener
        void on(WorkerReadinessChanged changed) {
            seen.add(changed);
        }

        List<WorkerReadiness> of(TenantEnvironmentId id) {
            return seen.stream()
                    .filter(e -> e.tenantEnvironment().equals(id))
                    .map(WorkerReadinessChanged::readiness)
                    .toList();
        }
    }
}
