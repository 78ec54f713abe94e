package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;

/**
 * RoleBinding {@code talkide-control-plane}: grants the control plane's ServiceAccount the chart's fixed
 * tenant ClusterRole in this namespace only. Created first, right after the namespace, because every other
 * call inside the namespace relies on it; the control plane holds {@code bind} on that one ClusterRole
 * instead of its verbs in every namespace.
 */
public final class ControlPlaneAccessBuilder {

    public static RoleBinding build(TenantEnvironmentId id, DesiredState desired, ProvisioningProperties properties) {
        ProvisioningProperties.TenantAccess access = properties.tenantAccess();
        return new RoleBindingBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.CONTROL_PLANE_ACCESS))
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", access.clusterRole())
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(access.serviceAccount())
                .withNamespace(properties.controlPlaneNamespace())
                .endSubject()
                .build();
    }

    private ControlPlaneAccessBuilder() {}
}
