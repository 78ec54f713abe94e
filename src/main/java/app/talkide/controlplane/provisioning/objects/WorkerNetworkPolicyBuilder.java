package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.Cidr;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.desired.EgressRule;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlockBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * NetworkPolicy {@code talkide-worker} for every pod in the tenant's namespace (worker and build Jobs).
 * Ingress: only the worker port, only from the control plane's pods in the control plane's namespace (both
 * selectors in one peer, so both must match). Egress: the worker runs agent-written code, so only DNS, the
 * control plane, the API server where configured, and the tenant-environment's allow-list; link-local
 * blocks (cloud metadata) are cut out of every allowed block.
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
                .withPolicyTypes("Ingress", "Egress")
                .addNewIngress()
                .addToFrom(controlPlane(properties))
                .addToPorts(tcp(ManagedNames.WORKER_PORT))
                .endIngress()
                .withEgress(egress(desired, properties))
                .endSpec()
                .build();
    }

    private static List<NetworkPolicyEgressRule> egress(DesiredState desired, ProvisioningProperties properties) {
        ProvisioningProperties.WorkerEgress egress = properties.workerEgress();
        List<NetworkPolicyEgressRule> rules = new ArrayList<>();
        rules.add(new NetworkPolicyEgressRuleBuilder()
                .addNewTo()
                .withNamespaceSelector(selector(Map.of(NAMESPACE_NAME_LABEL, egress.dnsNamespace())))
                .withPodSelector(selector(egress.dnsPodLabels()))
                .endTo()
                .addToPorts(port("UDP", 53), port("TCP", 53))
                .build());
        rules.add(new NetworkPolicyEgressRuleBuilder()
                .addToTo(controlPlane(properties))
                .addToPorts(tcp(ManagedNames.WORKER_PORT))
                .build());
        if (!egress.apiServerCidrs().isEmpty()) {
            NetworkPolicyEgressRuleBuilder apiServer = new NetworkPolicyEgressRuleBuilder();
            egress.apiServerCidrs().forEach(cidr -> apiServer.addToTo(ipBlock(cidr)));
            rules.add(apiServer.addToPorts(tcp(443), tcp(6443)).build());
        }
        for (EgressRule allowed : desired.egress()) {
            NetworkPolicyEgressRuleBuilder rule = new NetworkPolicyEgressRuleBuilder().addToTo(ipBlock(allowed.cidr()));
            allowed.ports().forEach(port -> rule.addToPorts(tcp(port)));
            rules.add(rule.build());
        }
        return rules;
    }

    private static io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer controlPlane(
            ProvisioningProperties properties) {
        return new NetworkPolicyPeerBuilder()
                .withNamespaceSelector(selector(Map.of(NAMESPACE_NAME_LABEL, properties.controlPlaneNamespace())))
                .withPodSelector(selector(properties.controlPlanePodLabels()))
                .build();
    }

    /** An IP block with every link-local range inside it excepted: 0.0.0.0/0 must not reach 169.254.169.254. */
    private static io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer ipBlock(String text) {
        Cidr cidr = Cidr.parse(text);
        List<String> except = cidr == null ? List.of() : cidr.linkLocalInside();
        return new NetworkPolicyPeerBuilder()
                .withIpBlock(new IPBlockBuilder()
                        .withCidr(text)
                        .withExcept(except.isEmpty() ? null : except)
                        .build())
                .build();
    }

    private static io.fabric8.kubernetes.api.model.LabelSelector selector(Map<String, String> labels) {
        return new LabelSelectorBuilder().withMatchLabels(labels).build();
    }

    private static NetworkPolicyPort tcp(int port) {
        return port("TCP", port);
    }

    private static NetworkPolicyPort port(String protocol, int port) {
        return new NetworkPolicyPortBuilder()
                .withProtocol(protocol)
                .withPort(new IntOrString(port))
                .build();
    }

    private WorkerNetworkPolicyBuilder() {}
}
