package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.tenant.TenantEnvironmentId;

/**
 * Namespaces no tenant-environment may have: every {@code kube-*} namespace, the configured ones
 * ({@code default}, ...) and the control plane's own. A tenant-environment {@code kube/system} is a valid
 * name, and exactly why this check exists.
 */
public final class ReservedNamespaces {

    private final ProvisioningProperties properties;

    public ReservedNamespaces(ProvisioningProperties properties) {
        this.properties = properties;
    }

    public boolean isReserved(TenantEnvironmentId id) {
        String namespace = id.namespace();
        return namespace.startsWith("kube-")
                || namespace.equals(properties.controlPlaneNamespace())
                || properties.reservedNamespaces().contains(namespace);
    }

    void check(TenantEnvironmentId id) {
        if (isReserved(id)) {
            throw new ReservedNamespace(id.namespace());
        }
    }
}
