package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler.ReconcileResult;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.provisioning.objects.WorkerSecretBuilder;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drift by hand: an owned field of each kind edited in the cluster is put back by the next pass, with one
 * patch and nothing else, and the pass after that writes nothing. Besides what
 * {@code KubernetesTenantEnvironmentReconcilerTest} edits (Deployment, Role, Namespace label, the Secret's
 * token): a RoleBinding recreated with another {@code roleRef} (immutable, so it is replaced, not patched), and a session volume grown by hand is not drift (a claim can only grow). A namespace deleted
 * by hand is recreated with everything in it.
 */
@DatabaseTest
class HandEditedObjectsRepairTest extends MockClusterTest {

    /** Every test starts from a tenant-environment provisioned in full. */
    @BeforeEach
    void provisioned() {
        assertThat(reconciler.reconcile(id).writes()).isEqualTo(11);
    }

    /**
     * One hand edit per kind: what it does to the live object, and how to tell it was put back. Each also
     * changes a managed label, which every kind carries.
     */
    record HandEdit<T extends HasMetadata>(Class<T> kind, Consumer<T> edit, Consumer<T> repaired) {

        @Override
        public String toString() {
            return kind.getSimpleName();
        }
    }

    static Stream<Arguments> handEdits() {
        return Stream.of(
                        new HandEdit<>(
                                Service.class,
                                service -> {
                                    service.getSpec().setSelector(Map.of("app", "someone-else"));
                                    service.getSpec().getPorts().get(0).setPort(9090);
                                    service.getSpec().getPorts().get(0).setTargetPort(new IntOrString(9090));
                                },
                                service -> {
                                    assertThat(service.getSpec().getSelector())
                                            .isEqualTo(Map.of(
                                                    "app.kubernetes.io/name",
                                                    ManagedNames.WORKER,
                                                    "app.kubernetes.io/instance",
                                                    service.getMetadata().getNamespace()));
                                    assertThat(service.getSpec().getPorts())
                                            .singleElement()
                                            .satisfies(port -> {
                                                assertThat(port.getPort()).isEqualTo(ManagedNames.WORKER_PORT);
                                                assertThat(port.getTargetPort().getStrVal())
                                                        .isEqualTo("http");
                                            });
                                }),
                        new HandEdit<>(
                                NetworkPolicy.class,
                                policy -> {
                                    // An ingress rule without "from" admits every source: the worker open to all.
                                    policy.getSpec().getIngress().get(0).setFrom(List.of());
                                    // Narrowed from every pod to some: the others would no longer be isolated.
                                    policy.getSpec()
                                            .setPodSelector(new LabelSelectorBuilder()
                                                    .withMatchLabels(Map.of("only", "these"))
                                                    .build());
                                },
                                policy -> {
                                    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                                            .isNullOrEmpty();
                                    assertThat(policy.getSpec().getIngress())
                                            .singleElement()
                                            .satisfies(rule -> assertThat(rule.getFrom())
                                                    .singleElement()
                                                    .satisfies(peer -> {
                                                        assertThat(peer.getNamespaceSelector()
                                                                        .getMatchLabels())
                                                                .containsEntry(
                                                                        "kubernetes.io/metadata.name", "talkide-prod");
                                                        assertThat(peer.getPodSelector()
                                                                        .getMatchLabels())
                                                                .isNotEmpty();
                                                    }));
                                }),
                        new HandEdit<>(
                                ResourceQuota.class,
                                quota -> {
                                    quota.getSpec().getHard().put("pods", new Quantity("1000"));
                                    quota.getSpec().getHard().remove("count/jobs.batch");
                                },
                                quota -> assertThat(quota.getSpec().getHard())
                                        .containsEntry("pods", new Quantity("20"))
                                        .containsEntry("count/jobs.batch", new Quantity("10"))),
                        new HandEdit<>(
                                LimitRange.class,
                                limits -> limits.getSpec()
                                        .getLimits()
                                        .get(0)
                                        .getDefault()
                                        .put("cpu", new Quantity("64")),
                                limits -> assertThat(limits.getSpec().getLimits())
                                        .singleElement()
                                        .satisfies(limit -> assertThat(limit.getDefault())
                                                .containsEntry("cpu", new Quantity("2")))),
                        // Only metadata: access modes and storage class are immutable, the size can only grow (below).
                        new HandEdit<>(PersistentVolumeClaim.class, claim -> {}, claim -> {}),
                        // A token mounted by default again would hand the worker its ServiceAccount's credentials.
                        new HandEdit<>(
                                ServiceAccount.class,
                                account -> account.setAutomountServiceAccountToken(true),
                                account -> assertThat(account.getAutomountServiceAccountToken())
                                        .isFalse()))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("handEdits")
    <T extends HasMetadata> void anOwnedFieldEditedByHandIsPutBackByOnePatchAndThenLeftAlone(HandEdit<T> handEdit) {
        String name = OBJECTS.get(handEdit.kind());
        var resource =
                client.resources(handEdit.kind()).inNamespace(id.namespace()).withName(name);
        resource.edit(live -> {
            handEdit.edit().accept(live);
            live.getMetadata().getLabels().put("app.kubernetes.io/part-of", "something-else");
            live.getMetadata().getLabels().put("added-by", "someone");
            return live;
        });
        requests.drain();

        ReconcileResult repair = reconciler.reconcile(id);

        assertThat(repair.degradedReason()).isNull();
        assertThat(repair.writes()).isEqualTo(1);
        assertThat(requests.writes())
                .singleElement()
                .satisfies(line -> assertThat(line).startsWith("PATCH ").contains("/" + name));
        T live = resource.get();
        handEdit.repaired().accept(live);
        assertThat(live.getMetadata().getLabels())
                .containsAllEntriesOf(ManagedNames.labelsOf(id))
                .containsEntry("added-by", "someone");
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(1);

        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();
    }

    @Test
    void aRoleBindingRecreatedByHandWithAnotherRoleIsReplaced() {
        var binding =
                client.rbac().roleBindings().inNamespace(id.namespace()).withName(ManagedNames.CONTROL_PLANE_ACCESS);
        RoleBinding ours = binding.get();
        binding.delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> binding.get() == null);
        // roleRef is immutable: a patch cannot put it back, only deleting and creating can.
        client.resource(new RoleBindingBuilder(ours)
                        .editMetadata()
                        .withResourceVersion(null)
                        .withUid(null)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "edit")
                        .build())
                .create();
        requests.drain();

        ReconcileResult repair = reconciler.reconcile(id);

        assertThat(repair.degradedReason()).isNull();
        assertThat(repair.writes()).isEqualTo(1);
        assertThat(requests.writes())
                .satisfiesExactly(
                        delete -> assertThat(delete)
                                .startsWith("DELETE ")
                                .contains("/rolebindings/" + ManagedNames.CONTROL_PLANE_ACCESS),
                        create -> assertThat(create).startsWith("POST ").contains("/rolebindings"));
        assertThat(binding.get().getRoleRef()).isEqualTo(ours.getRoleRef());
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(1);

        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();
    }

    @Test
    void theWorkerRoleOfEarlierReleasesIsDeletedOnce() {
        // Earlier releases let the worker run build Jobs itself; now it must hold no Kubernetes rights.
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName(ManagedNames.WORKER)
                        .withNamespace(id.namespace())
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("batch")
                        .withResources("jobs")
                        .withVerbs("create")
                        .endRule()
                        .build())
                .create();
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName(ManagedNames.WORKER)
                        .withNamespace(id.namespace())
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", ManagedNames.WORKER)
                        .build())
                .create();
        requests.drain();

        reconciler.reconcile(id);

        assertThat(requests.writes())
                .hasSize(2)
                .allSatisfy(line -> assertThat(line).startsWith("DELETE ").endsWith("/" + ManagedNames.WORKER));
        assertThat(client.rbac()
                        .roles()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.WORKER)
                        .get())
                .isNull();
        assertThat(client.rbac()
                        .roleBindings()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.WORKER)
                        .get())
                .isNull();
        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();
    }

    @Test
    void aSessionVolumeGrownByHandIsNotShrunkBack() {
        var claim = client.persistentVolumeClaims().inNamespace(id.namespace()).withName(ManagedNames.SESSIONS_VOLUME);
        claim.edit(live -> {
            live.getSpec().getResources().getRequests().put("storage", new Quantity("50Gi"));
            return live;
        });
        requests.drain();

        // The API server refuses a smaller request, so putting the desired 10Gi back would fail every pass.
        ReconcileResult pass = reconciler.reconcile(id);

        assertThat(pass.degradedReason()).isNull();
        assertThat(pass.writes()).isZero();
        assertThat(requests.writes()).isEmpty();
        assertThat(claim.get().getSpec().getResources().getRequests()).containsEntry("storage", new Quantity("50Gi"));
        assertThat(desiredStates.get(id).driftRepairs()).isZero();
    }

    @Test
    void aLargerDesiredSessionVolumeIsStillApplied() {
        desiredStates.put(id, new DesiredStateSpec(null, null, null, "20Gi", null, null, null));

        assertThat(reconciler.reconcile(id).writes()).isEqualTo(1);

        assertThat(client.persistentVolumeClaims()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.SESSIONS_VOLUME)
                        .get()
                        .getSpec()
                        .getResources()
                        .getRequests())
                .containsEntry("storage", new Quantity("20Gi"));
    }

    @Test
    void aNamespaceDeletedByHandIsRecreatedWithEverythingInItOnceItIsGone() {
        String oldToken = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);
        // kubectl delete namespace: a real cluster keeps it terminating (its spec.finalizers "kubernetes")
        // while the namespace controller empties it. The mock runs no controllers and honours only metadata
        // finalizers, so this test holds it with one and does the controller's part by hand.
        var namespace = client.namespaces().withName(id.namespace());
        namespace.edit(live -> {
            live.getMetadata().setFinalizers(List.of("kubernetes"));
            return live;
        });
        namespace.delete();
        requests.drain();

        ReconcileResult whileTerminating = reconciler.reconcile(id);

        assertThat(whileTerminating.writes()).isZero();
        assertThat(requests.writes()).isEmpty();
        assertThat(whileTerminating.degradedReason()).contains("is being deleted");

        OBJECTS.keySet()
                .forEach(kind ->
                        client.resources(kind).inNamespace(id.namespace()).delete());
        // The control plane's own RoleBinding goes with the namespace too.
        client.rbac().roleBindings().inNamespace(id.namespace()).delete();
        namespace.edit(live -> {
            live.getMetadata().setFinalizers(List.of());
            return live;
        });
        assertThat(namespace.get()).isNull();
        requests.drain();

        ReconcileResult recreated = reconciler.reconcile(id);

        assertThat(recreated.degradedReason()).isNull();
        assertThat(recreated.writes()).isEqualTo(11);
        assertThat(requests.writes()).hasSize(11).allMatch(line -> line.startsWith("POST "));
        assertThat(namespace.get().getMetadata().getLabels()).containsAllEntriesOf(ManagedNames.labelsOf(id));
        OBJECTS.forEach((kind, name) -> assertThat(client.resources(kind)
                        .inNamespace(id.namespace())
                        .withName(name)
                        .get())
                .as(kind.getSimpleName())
                .isNotNull());
        // The Secret went with the namespace, and with it the only copy of the token: a new one, the old
        // one retired at the end of the grace period (no pod holds it any more, but none is cut off early).
        String newToken = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);
        assertThat(newToken).isNotEqualTo(oldToken);
        assertThat(identityTokens.verify(newToken)).isPresent();
        assertThat(identityTokens.list(id))
                .filteredOn(token -> token.revokedAt() != null)
                .singleElement()
                .satisfies(token -> assertThat(token.revokedAt()).isAfter(Instant.now()));
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(11);
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.PROVISIONING);

        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.writes()).isEmpty();
    }

    private Secret secret() {
        return client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_SECRET)
                .get();
    }
}
