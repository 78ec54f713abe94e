package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler.ReconcileResult;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.provisioning.objects.WorkerSecretBuilder;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.token.command.CommandKeys;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mockito.Mockito;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Reconciling against fabric8's CRUD mock API server: what the first pass creates, that a steady state
 * writes nothing, drift repair per kind, the foreign-namespace guard, and deprovisioning.
 */
@DatabaseTest
class KubernetesTenantEnvironmentReconcilerTest extends MockClusterTest {

    @Autowired
    CommandKeys commandKeys;

    @Autowired
    ProvisioningProperties provisioningProperties;

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    @Test
    void firstProvisioningCreatesTheNamespaceAndEveryObjectInIt() {
        requests.drain();
        ReconcileResult result = reconciler.reconcile(id);

        assertThat(result.degradedReason()).isNull();
        assertThat(result.writes()).isEqualTo(11);
        assertThat(requests.writes()).hasSize(11).allMatch(line -> line.startsWith("POST "));
        // The application's calls are told from the test's own, so the RBAC check after each test sees them.
        assertThat(requests.applicationCalls()).hasSizeGreaterThanOrEqualTo(11);
        Namespace namespace = client.namespaces().withName(id.namespace()).get();
        assertThat(namespace.getMetadata().getLabels()).containsAllEntriesOf(ManagedNames.labelsOf(id));
        OBJECTS.forEach((kind, name) -> assertThat(client.resources(kind)
                        .inNamespace(id.namespace())
                        .withName(name)
                        .get())
                .as(kind.getSimpleName())
                .satisfies(object ->
                        assertThat(object.getMetadata().getLabels()).containsAllEntriesOf(ManagedNames.labelsOf(id))));
        assertThat(client.rbac()
                        .roleBindings()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.CONTROL_PLANE_ACCESS)
                        .get())
                .satisfies(access -> {
                    assertThat(access.getRoleRef().getKind()).isEqualTo("ClusterRole");
                    assertThat(access.getRoleRef().getName()).isEqualTo("talkide-control-plane-tenant");
                    assertThat(access.getSubjects())
                            .singleElement()
                            .satisfies(subject ->
                                    assertThat(subject.getNamespace()).isEqualTo("talkide-prod"));
                });
        String token = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);
        assertThat(identityTokens.verify(token))
                .hasValueSatisfying(
                        identity -> assertThat(identity.tenantEnvironment()).isEqualTo(id));
        assertThat(WorkerSecretBuilder.read(secret(), WorkerSecretKeys.COMMAND_KEY))
                .isNotBlank();
        assertThat(deployment().getSpec().getTemplate().getMetadata().getAnnotations())
                .containsKey(ManagedNames.ROLLED_AT_ANNOTATION);

        var view = desiredStates.get(id);
        assertThat(view.status()).isEqualTo(TenantEnvironmentStatus.PROVISIONING);
        assertThat(view.lastReconciledAt()).isNotNull();
        assertThat(view.appliedGeneration()).isEqualTo(view.generation());
        assertThat(view.driftRepairs()).isZero();
    }

    @Test
    void aSteadyStateMakesNoWriteCalls() {
        reconciler.reconcile(id);
        requests.drain();

        ReconcileResult second = reconciler.reconcile(id);
        ReconcileResult third = reconciler.reconcile(id);

        assertThat(second.writes()).isZero();
        assertThat(third.writes()).isZero();
        List<String> calls = requests.drain();
        assertThat(calls).isNotEmpty().allMatch(line -> line.startsWith("GET "));
        assertThat(desiredStates.get(id).driftRepairs()).isZero();
        assertThat(identityTokens.list(id)).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ResourceQuota",
                "LimitRange",
                "ServiceAccount",
                "PersistentVolumeClaim",
                "NetworkPolicy",
                "Service",
                "Deployment"
            })
    void anObjectDeletedByHandIsRecreatedAndCountedAsDrift(String kindName) {
        reconciler.reconcile(id);
        Class<? extends HasMetadata> kind = KINDS.stream()
                .filter(k -> k.getSimpleName().equals(kindName))
                .findFirst()
                .orElseThrow();
        var object = client.resources(kind).inNamespace(id.namespace()).withName(OBJECTS.get(kind));
        object.delete();
        assertThat(object.get()).isNull();
        requests.drain();
        double repairsBefore =
                meters.counter("talkide.provisioning.drift.repairs").count();

        ReconcileResult repair = reconciler.reconcile(id);

        assertThat(repair.writes()).isEqualTo(1);
        assertThat(requests.writes()).hasSize(1).allMatch(line -> line.startsWith("POST "));
        assertThat(object.get()).isNotNull();
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(1);
        assertThat(meters.counter("talkide.provisioning.drift.repairs").count()).isEqualTo(repairsBefore + 1);
        assertThat(reconciler.reconcile(id).writes()).isZero();
    }

    @Test
    void aDeletedSecretGetsANewTokenRollsTheWorkerAndRetiresTheOldToken() {
        reconciler.reconcile(id);
        String oldToken = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);
        String oldRoll = rolledAt();
        client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_SECRET)
                .delete();

        ReconcileResult repair = reconciler.reconcile(id);

        assertThat(repair.writes()).isEqualTo(2); // the Secret, and the Deployment's roll annotation
        String newToken = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);
        assertThat(newToken).isNotEqualTo(oldToken);
        assertThat(identityTokens.verify(newToken)).isPresent();
        assertThat(rolledAt()).isNotEqualTo(oldRoll);
        // The old token is rotated out: it stops working at the end of the grace period, not at once.
        assertThat(identityTokens.list(id))
                .filteredOn(token -> token.revokedAt() != null)
                .singleElement()
                .satisfies(token ->
                        assertThat(token.revokedAt()).isAfter(Instant.now().minusSeconds(1)));
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(2);
    }

    @Test
    void aTokenEditedByHandIsReplacedByAValidOne() {
        reconciler.reconcile(id);
        client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_SECRET)
                .edit(secret -> {
                    secret.getData().put(WorkerSecretKeys.IDENTITY_TOKEN, "dGt3aV9mb3JnZWQ=");
                    return secret;
                });

        assertThat(reconciler.reconcile(id).writes()).isEqualTo(2);
        assertThat(identityTokens.verify(WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN)))
                .isPresent();
    }

    @Test
    void fieldsEditedByHandArePutBackWhileFieldsOthersAddAreLeftAlone() {
        reconciler.reconcile(id);
        client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .edit(deployment -> {
                    deployment
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .setImage("evil/worker:1");
                    deployment.getSpec().setReplicas(3);
                    deployment.getMetadata().getAnnotations().put("deployment.kubernetes.io/revision", "2");
                    return deployment;
                });
        client.serviceAccounts()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .edit(account -> {
                    account.setAutomountServiceAccountToken(true);
                    return account;
                });
        client.namespaces().withName(id.namespace()).edit(namespace -> {
            namespace.getMetadata().getLabels().put("pod-security.kubernetes.io/enforce", "privileged");
            return namespace;
        });
        requests.drain();

        ReconcileResult repair = reconciler.reconcile(id);

        assertThat(repair.writes()).isEqualTo(3);
        assertThat(requests.writes()).hasSize(3).allMatch(line -> line.startsWith("PATCH "));
        Deployment deployment = deployment();
        assertThat(deployment
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("registry.example.com/talkide/worker:0.1.0");
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
        assertThat(deployment.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");
        assertThat(client.serviceAccounts()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.WORKER)
                        .get()
                        .getAutomountServiceAccountToken())
                .isFalse();
        assertThat(client.namespaces()
                        .withName(id.namespace())
                        .get()
                        .getMetadata()
                        .getLabels())
                .containsEntry("pod-security.kubernetes.io/enforce", "baseline");
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(3);
    }

    @Test
    void aChangedDesiredStateIsAppliedAndIsNotCountedAsDrift() {
        reconciler.reconcile(id);
        desiredStates.put(
                id,
                new DesiredStateSpec(
                        "registry.example.com/worker:2.0", null, null, null, null, Map.of("team", "red"), null));
        requests.drain();

        ReconcileResult result = reconciler.reconcile(id);

        assertThat(result.writes()).isEqualTo(11); // the label is on every object
        assertThat(deployment()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("registry.example.com/worker:2.0");
        assertThat(client.services()
                        .inNamespace(id.namespace())
                        .withName(ManagedNames.WORKER)
                        .get()
                        .getMetadata()
                        .getLabels())
                .containsEntry("team", "red");
        var view = desiredStates.get(id);
        assertThat(view.driftRepairs()).isZero();
        assertThat(view.appliedGeneration()).isEqualTo(2);
        assertThat(reconciler.reconcile(id).writes()).isZero();
    }

    @Test
    void aReadyWorkerDeploymentMakesTheTenantEnvironmentReady() {
        reconciler.reconcile(id);
        Deployment deployment = deployment();
        deployment.setStatus(new DeploymentStatusBuilder()
                .withReadyReplicas(1)
                .withReplicas(1)
                .build());
        client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .resource(deployment)
                .updateStatus();

        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.READY);
    }

    @Test
    void aNamespaceThatIsNotOursIsNeitherAdoptedNorChanged() {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(id.namespace())
                        .withLabels(Map.of("owner", "someone-else"))
                        .endMetadata()
                        .build())
                .create();
        requests.drain();

        ReconcileResult result = reconciler.reconcile(id);

        assertThat(result.writes()).isZero();
        assertThat(result.degradedReason()).contains("not managed by the control plane");
        assertThat(requests.writes()).isEmpty();
        assertThat(client.namespaces()
                        .withName(id.namespace())
                        .get()
                        .getMetadata()
                        .getLabels())
                .isEqualTo(Map.of("owner", "someone-else"));
        TenantEnvironment environment = tenantEnvironments.get(id);
        assertThat(environment.status()).isEqualTo(TenantEnvironmentStatus.DEGRADED);
        assertThat(environment.statusReason()).contains("not adopted");
        assertThat(identityTokens.list(id)).isEmpty();

        // Deleting it does not touch the foreign namespace either.
        desiredStates.delete(id);
        reconciler.reconcile(id);
        assertThat(client.namespaces().withName(id.namespace()).get()).isNotNull();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.DELETED);
    }

    @Test
    void aReservedNamespaceIsNeverProvisioned() {
        TenantEnvironmentId controlPlane = TenantEnvironmentId.of("talkide", "prod");
        tenantEnvironments.register(controlPlane);
        requests.drain();

        ReconcileResult result = reconciler.reconcile(controlPlane);

        assertThat(result.degradedReason()).contains("reserved");
        assertThat(requests.drain()).isEmpty();
    }

    @Test
    void deprovisioningLeavesNothingAndRevokesTheTokens() {
        reconciler.reconcile(id);
        String token = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);

        var deleting = desiredStates.delete(id);
        assertThat(deleting.status()).isEqualTo(TenantEnvironmentStatus.DELETING);
        assertThat(identityTokens.verify(token)).isEmpty();
        ReconcileResult result = reconciler.reconcile(id);

        assertThat(result.degradedReason()).isNull();
        assertThat(client.namespaces().withName(id.namespace()).get()).isNull();
        for (Class<? extends HasMetadata> kind : KINDS) {
            assertThat(client.resources(kind).inNamespace(id.namespace()).list().getItems())
                    .as(kind.getSimpleName())
                    .isEmpty();
        }
        assertThat(identityTokens.list(id))
                .allSatisfy(t -> assertThat(t.revokedAt()).isNotNull());
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.DELETED);
        requests.drain();
        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(requests.drain()).isEmpty();
    }

    @Test
    void aDeletionThatCommitsWhileAPassAppliesIsNotUndoneAndNoTokenOutlivesIt() {
        reconciler.reconcile(id);
        // The deletion lands in the middle of the next pass: after it read the status, while it works out
        // the Secret (which it finds revoked by the deletion, so it issues a new token).
        AtomicBoolean deleted = new AtomicBoolean();
        CommandKeys keysThatLetADeletionIn = Mockito.spy(commandKeys);
        Mockito.doAnswer(call -> {
                    if (deleted.compareAndSet(false, true)) {
                        desiredStates.delete(id);
                    }
                    return call.callRealMethod();
                })
                .when(keysThatLetADeletionIn)
                .forWorker(Mockito.any());
        KubernetesTenantEnvironmentReconciler racing = new KubernetesTenantEnvironmentReconciler(
                client,
                tenantEnvironments,
                desiredStates,
                identityTokens,
                keysThatLetADeletionIn,
                provisioningProperties,
                new SimpleMeterRegistry(),
                Clock.systemUTC());
        client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_SECRET)
                .delete();

        racing.reconcile(id);

        assertThat(deleted).isTrue();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.DELETING);
        String issuedDuringThePass = WorkerSecretBuilder.read(secret(), WorkerSecretKeys.IDENTITY_TOKEN);
        // The pass the deletion asked for tears everything down, including that token.
        reconciler.reconcile(id);
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.DELETED);
        assertThat(client.namespaces().withName(id.namespace()).get()).isNull();
        assertThat(identityTokens.verify(issuedDuringThePass)).isEmpty();
        assertThat(identityTokens.list(id))
                .allSatisfy(t -> assertThat(t.revokedAt()).isNotNull());
    }

    @Test
    void aForeignFinalizerDelaysDeprovisioningForABoundedTimeAndTheNextPassFinishes() {
        reconciler.reconcile(id);
        client.namespaces().withName(id.namespace()).edit(namespace -> {
            namespace.getMetadata().setFinalizers(List.of("example.com/hold"));
            return namespace;
        });
        desiredStates.delete(id);

        Instant started = Instant.now();
        ReconcileResult stuck = reconciler.reconcile(id);

        assertThat(Duration.between(started, Instant.now())).isLessThan(Duration.ofSeconds(10));
        assertThat(stuck.degradedReason()).contains("still terminating").contains("example.com/hold");
        TenantEnvironment environment = tenantEnvironments.get(id);
        assertThat(environment.status()).isEqualTo(TenantEnvironmentStatus.DELETING);
        assertThat(environment.statusReason()).contains("example.com/hold");
        // What the control plane created inside is gone already; only the namespace waits for its finalizer.
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(id.namespace())
                        .list()
                        .getItems())
                .isEmpty();

        client.namespaces().withName(id.namespace()).edit(namespace -> {
            namespace.getMetadata().setFinalizers(List.of());
            return namespace;
        });
        ReconcileResult finished = reconciler.reconcile(id);
        assertThat(finished.degradedReason()).isNull();
        assertThat(client.namespaces().withName(id.namespace()).get()).isNull();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(TenantEnvironmentStatus.DELETED);
    }

    private Secret secret() {
        return client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_SECRET)
                .get();
    }

    private Deployment deployment() {
        return client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .get();
    }

    private String rolledAt() {
        return deployment()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(ManagedNames.ROLLED_AT_ANNOTATION);
    }
}
