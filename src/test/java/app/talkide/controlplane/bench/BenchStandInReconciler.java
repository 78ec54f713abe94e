package app.talkide.controlplane.bench;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Used by the benchmark only while the application defines no {@link TenantEnvironmentReconciler} (the
 * real one is built on another branch): per tenant-environment it reads each of the eleven objects the
 * real one owns and creates what is missing, i.e. the calls of a get-compare-create reconcile with no
 * drift. Once the application has its own reconciler, the benchmark measures that one instead.
 */
final class BenchStandInReconciler implements TenantEnvironmentReconciler {

    private final KubernetesClient client;

    BenchStandInReconciler(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public ReconcileResult reconcile(TenantEnvironmentId id) {
        int writes = 0;
        for (HasMetadata desired : desired(id)) {
            if (client.resource(desired).get() == null) {
                client.resource(desired).create();
                writes++;
            }
        }
        return new ReconcileResult(writes, null);
    }

    @Override
    public void deprovision(TenantEnvironmentId id) {
        client.namespaces().withName(id.namespace()).delete();
    }

    private static List<HasMetadata> desired(TenantEnvironmentId id) {
        String ns = id.namespace();
        return List.of(
                new NamespaceBuilder().withMetadata(meta(id, ns, null)).build(),
                new ServiceAccountBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER, ns))
                        .build(),
                new RoleBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER, ns))
                        .build(),
                new RoleBindingBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER, ns))
                        .build(),
                new SecretBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER_SECRET, ns))
                        .build(),
                new PersistentVolumeClaimBuilder()
                        .withMetadata(meta(id, ManagedNames.SESSIONS_VOLUME, ns))
                        .build(),
                new DeploymentBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER, ns))
                        .build(),
                new ServiceBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER, ns))
                        .build(),
                new NetworkPolicyBuilder()
                        .withMetadata(meta(id, ManagedNames.WORKER, ns))
                        .build(),
                new ResourceQuotaBuilder()
                        .withMetadata(meta(id, "talkide-quota", ns))
                        .build(),
                new LimitRangeBuilder()
                        .withMetadata(meta(id, "talkide-limits", ns))
                        .build());
    }

    private static ObjectMeta meta(TenantEnvironmentId id, String name, String namespace) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(ManagedNames.labelsOf(id))
                .build();
    }
}
