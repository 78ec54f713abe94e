package app.talkide.controlplane.provisioning.reconcile;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Whether a live namespace is this tenant-environment's, created by the control plane. One that is not (no
 * managed-by label, or another tenant-environment's labels) is never adopted, changed or deleted.
 */
final class NamespaceOwnership {

    static boolean isOurs(Namespace namespace, TenantEnvironmentId id) {
        Map<String, String> labels = namespace.getMetadata().getLabels();
        return labels != null
                && ManagedNames.MANAGED_BY.equals(labels.get(ManagedNames.MANAGED_BY_LABEL))
                && id.tenant().equals(labels.get(ManagedNames.TENANT_LABEL))
                && id.env().equals(labels.get(ManagedNames.ENV_LABEL));
    }

    static @Nullable String foreignReason(Namespace namespace, TenantEnvironmentId id) {
        return isOurs(namespace, id)
                ? null
                : "The namespace " + id.namespace() + " exists and is not managed by the control plane for " + id
                        + "; it is not adopted. Delete or rename it, or choose another tenant-environment name.";
    }

    private NamespaceOwnership() {}
}
