package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

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

    /**
     * Which labels came from {@code extraLabels}: labels are owned as a subset (others may add theirs), so
     * only this record tells the reconciler which ones to remove when an operator drops an extra label.
     * Absent when there are none, so objects without extra labels look as they always did.
     */
    static Map<String, String> annotations(DesiredState desired) {
        if (desired.extraLabels().isEmpty()) {
            return Map.of();
        }
        String keys = String.join(",", new TreeSet<>(desired.extraLabels().keySet()));
        return Map.of(ManagedNames.EXTRA_LABELS_ANNOTATION, keys);
    }

    static ObjectMeta of(TenantEnvironmentId id, DesiredState desired, String name) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(id.namespace())
                .withLabels(labels(id, desired))
                .withAnnotations(annotations(desired))
                .build();
    }

    private ManagedMetadata() {}
}
