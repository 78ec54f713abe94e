package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import java.util.Map;

/**
 * NetworkPolicy {@code talkide-worker}: nothing in the tenant's namespace accepts connections except the
 * worker port from the control plane's pods in the control plane's namespace (both selectors in one peer,
 * so both must match). Other tenants and their build Jobs cannot reach a worker. Egress stays open: the
 * worker calls the control plane and fetches code.
 */
public final class WorkerNetworkPolicyBuilder {

    /** Set by Kubernetes (1.21+) on every namespace; cannot be forged by whoever creates a namespace. */
    static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    public static NetworkPolicy build(TenantEnvironmentId id, DesiredState desired, ProvisioningProperties properties) {
        return new NetworkPolicyBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .withNewSpec()
                .withNewPodSelector() // every pod in the namespace
                .endPodSelector()
                .withPolicyTypes("Ingress")
                .addNewIngress()
                .addNewFrom()
                .withNewNamespaceSelector()
                .withMatchLabels(Map.of(NAMESPACE_NAME_LABEL, properties.controlPlaneNamespace()))
                .endNamespaceSelector()
                .withNewPodSelector()
                .withMatchLabels(properties.controlPlanePodLabels())
                .endPodSelector()
                .endFrom()
                .addNewPort()
                .withProtocol("TCP")
                .withPort(new IntOrString(ManagedNames.WORKER_PORT))
                .endPort()
                .endIngress()
                .endSpec()
                .build();
    }

    private WorkerNetworkPolicyBuilder() {}
}
