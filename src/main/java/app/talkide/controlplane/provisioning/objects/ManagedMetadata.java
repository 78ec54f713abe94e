package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/** Metadata every managed object shares: its name, its namespace and the labels that mark it as ours. */
final class ManagedMetadata {

    /** Labels that pick the worker's pods (Deployment selector, Service, NetworkPolicy); never change them. */
    static Map<String, String> workerSelector(TenantEnvironmentId id) {
        return Map.of("app.kubernetes.io/name", ManagedNames.WORKER, "app.kubernetes.io/instance", id.namespace());
    }

    /** Extra labels first, so the managed ones always win (validation refuses clashes anyway). */
    static Map<String, String> labels(TenantEnvironmentId id, DesiredState desired) {
        Map<String, String> labels = new LinkedHashMap<>(desired.extraLabels());
        labels.putAll(ManagedNames.labelsOf(id));
        return labels;
    }

    static ObjectMeta of(TenantEnvironmentId id, DesiredState desired, String name) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(id.namespace())
                .withLabels(labels(id, desired))
                .build();
    }

    private ManagedMetadata() {}
}
