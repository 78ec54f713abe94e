package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler.ReconcileResult;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What others write into our objects (an admission webhook's sidecar and environment variable), extra
 * labels an operator drops, and API errors that go away by themselves.
 */
@DatabaseTest
class ForeignWritesAndApiErrorsTest extends MockClusterTest {

    @Test
    void aSidecarAndAnEnvVarAWebhookAppendedCauseNoPatchAndSurviveARepair() {
        reconciler.reconcile(id);
        var deployment = client.apps().deployments().inNamespace(id.namespace()).withName(ManagedNames.WORKER);
        deployment.edit(live -> {
            var pod = live.getSpec().getTemplate().getSpec();
            pod.getContainers().get(0).getEnv().add(new EnvVar("MESH_PROXY", "on", null));
            pod.getContainers()
                    .add(new ContainerBuilder()
                            .withName("mesh-proxy")
                            .withImage("mesh/proxy:1")
                            .build());
            return live;
        });
        requests.drain();

        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();

        deployment.edit(live -> {
            live.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("someone/else:1");
            return live;
        });
        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isEqualTo(1);

        var pod = deployment.get().getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers()).hasSize(2).extracting(c -> c.getName()).contains("mesh-proxy");
        assertThat(pod.getContainers().get(0).getImage()).isNotEqualTo("someone/else:1");
        assertThat(pod.getContainers().get(0).getEnv())
                .extracting(EnvVar::getName)
                .contains("MESH_PROXY");
        assertThat(reconciler.reconcile(id).writes()).isZero();
    }

    @Test
    void anExtraLabelDroppedFromTheDesiredStateIsRemovedFromEveryObjectWhileOthersLabelsStay() {
        desiredStates.put(
                id, new DesiredStateSpec(null, null, null, null, null, Map.of("team", "blue", "cost", "a1"), null));
        reconciler.reconcile(id);
        var deployment = client.apps().deployments().inNamespace(id.namespace()).withName(ManagedNames.WORKER);
        deployment.edit(live -> {
            live.getMetadata().getLabels().put("added-by", "someone");
            return live;
        });

        desiredStates.put(id, new DesiredStateSpec(null, null, null, null, null, Map.of("team", "blue"), null));
        assertThat(reconciler.reconcile(id).degradedReason()).isNull();

        for (var kind : KINDS) {
            HasMetadata live = client.resources(kind)
                    .inNamespace(id.namespace())
                    .withName(OBJECTS.get(kind))
                    .get();
            assertThat(live.getMetadata().getLabels())
                    .as(kind.getSimpleName())
                    .containsEntry("team", "blue")
                    .doesNotContainKey("cost");
            assertThat(live.getMetadata().getAnnotations()).containsEntry(ManagedNames.EXTRA_LABELS_ANNOTATION, "team");
        }
        assertThat(client.namespaces()
                        .withName(id.namespace())
                        .get()
                        .getMetadata()
                        .getLabels())
                .doesNotContainKey("cost");
        Deployment live = deployment.get();
        assertThat(live.getMetadata().getLabels()).containsEntry("added-by", "someone");
        assertThat(live.getSpec().getTemplate().getMetadata().getLabels()).doesNotContainKey("cost");

        desiredStates.put(id, DesiredStateSpec.DEFAULTS);
        reconciler.reconcile(id);
        assertThat(deployment.get().getMetadata().getLabels()).doesNotContainKey("team");
        assertThat(deployment.get().getMetadata().getAnnotations())
                .doesNotContainKey(ManagedNames.EXTRA_LABELS_ANNOTATION);
        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isZero();
    }

    @Test
    void aConflictingWriteAsksForARetryAndTheRetryFinishesTheJob() {
        server.expect()
                .post()
                .withPath("/apis/apps/v1/namespaces/" + id.namespace()
                        + "/deployments?fieldManager=talkide-control-plane")
                // fabric8 retries 429 and 5xx itself a few times; a conflict comes straight back to the pass.
                .andReturn(
                        409,
                        new StatusBuilder()
                                .withCode(409)
                                .withMessage("Operation cannot be fulfilled")
                                .build())
                .once();

        ReconcileResult conflicted = reconciler.reconcile(id);

        assertThat(conflicted.retry()).isTrue();
        assertThat(conflicted.degradedReason()).contains("Deployment").contains("409");
        ReconcileResult retried = reconciler.reconcile(id);
        assertThat(retried.retry()).isFalse();
        assertThat(retried.degradedReason()).isNull();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.PROVISIONING);
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.WORKER)
                        .get())
                .isNotNull();
    }

    @Test
    void aForbiddenWriteIsNotRetriedItNeedsAPerson() {
        server.expect()
                .post()
                .withPath("/api/v1/namespaces/" + id.namespace() + "/secrets?fieldManager=talkide-control-plane")
                .andReturn(
                        403,
                        new StatusBuilder()
                                .withCode(403)
                                .withMessage("forbidden")
                                .build())
                .once();

        ReconcileResult forbidden = reconciler.reconcile(id);

        assertThat(forbidden.retry()).isFalse();
        assertThat(forbidden.degradedReason()).contains("403");
    }

    @Test
    void aPassStopsWritingOnceThisReplicaNoLongerLeads() {
        java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
        requests.drain();

        // Leads for the namespace and three more objects, then loses the Lease.
        ReconcileResult stopped = reconciler.reconcile(id, () -> checks.incrementAndGet() <= 4);

        assertThat(stopped.writes()).isEqualTo(4);
        assertThat(requests.writes()).hasSize(4);
        assertThat(stopped.degradedReason()).contains("no longer leads");
        assertThat(tenantEnvironments.get(id).status()).isNotEqualTo(TenantEnvironmentStatus.DEGRADED);
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.WORKER)
                        .get())
                .isNull();
    }
}
