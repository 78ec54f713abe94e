package app.talkide.controlplane.provisioning.objects;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.provisioning.desired.EgressRule;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** The worker namespace's egress: DNS and the control plane by default, an allow-list, never link-local. */
class WorkerNetworkPolicyTest {

    static final TenantEnvironmentId ACME_DEV = TenantEnvironmentId.of("acme", "dev");
    static final ProvisioningProperties PROPERTIES = ProvisioningFixtures.properties(
            "control-plane-namespace", "talkide-prod",
            "control-plane-pod-labels.[app.kubernetes.io/name]", "talkide-control-plane");

    @Test
    void byDefaultOnlyDnsAndTheControlPlaneAreReachable() {
        NetworkPolicy policy = build(PROPERTIES, null);

        assertThat(policy.getSpec().getPolicyTypes()).contains("Egress");
        List<NetworkPolicyEgressRule> egress = policy.getSpec().getEgress();
        assertThat(egress).hasSize(2);
        NetworkPolicyPeer dns = egress.get(0).getTo().get(0);
        assertThat(dns.getNamespaceSelector().getMatchLabels())
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "kube-system"));
        assertThat(dns.getPodSelector().getMatchLabels()).isEqualTo(Map.of("k8s-app", "kube-dns"));
        assertThat(egress.get(0).getPorts())
                .extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                .containsExactlyInAnyOrder("UDP/53", "TCP/53");
        NetworkPolicyPeer controlPlane = egress.get(1).getTo().get(0);
        assertThat(controlPlane.getNamespaceSelector().getMatchLabels())
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "talkide-prod"));
        assertThat(controlPlane.getPodSelector().getMatchLabels())
                .isEqualTo(Map.of("app.kubernetes.io/name", "talkide-control-plane"));
        assertThat(egress.get(1).getPorts())
                .singleElement()
                .satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(8080));
        assertThat(ipBlocks(policy)).isEmpty();
    }

    @Test
    void theAllowListAddsItsBlocksAndPortsWithLinkLocalAlwaysCutOut() {
        NetworkPolicy policy = build(
                PROPERTIES,
                List.of(
                        new EgressRule("0.0.0.0/0", List.of(443)),
                        new EgressRule("::/0", List.of(443)),
                        new EgressRule("203.0.113.0/24", null)));

        List<NetworkPolicyEgressRule> egress = policy.getSpec().getEgress();
        assertThat(egress).hasSize(5);
        assertThat(egress.get(2).getTo().get(0).getIpBlock().getExcept()).containsExactly("169.254.0.0/16");
        assertThat(egress.get(2).getPorts())
                .singleElement()
                .satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(443));
        assertThat(egress.get(3).getTo().get(0).getIpBlock().getExcept()).containsExactly("fe80::/10");
        assertThat(egress.get(4).getTo().get(0).getIpBlock().getCidr()).isEqualTo("203.0.113.0/24");
        assertThat(egress.get(4).getTo().get(0).getIpBlock().getExcept()).isNullOrEmpty();
        assertThat(egress.get(4).getPorts()).isNullOrEmpty();
    }

    @Test
    void configuredApiServerAddressesAreReachableOnTheirPortsForBuildJobs() {
        ProvisioningProperties withApiServer = ProvisioningFixtures.properties(
                "control-plane-namespace", "talkide-prod", "worker-egress.api-server-cidrs", "10.0.0.1/32");

        List<NetworkPolicyEgressRule> egress =
                build(withApiServer, null).getSpec().getEgress();

        assertThat(egress).hasSize(3);
        assertThat(egress.get(2).getTo().get(0).getIpBlock().getCidr()).isEqualTo("10.0.0.1/32");
        assertThat(egress.get(2).getPorts())
                .extracting(p -> p.getPort().getIntVal())
                .containsExactly(443, 6443);
    }

    private static NetworkPolicy build(ProvisioningProperties properties, List<EgressRule> egress) {
        return WorkerNetworkPolicyBuilder.build(
                ACME_DEV,
                new DesiredStateSpec(null, null, null, null, null, null, egress).resolve(properties),
                properties);
    }

    private static List<String> ipBlocks(NetworkPolicy policy) {
        return policy.getSpec().getEgress().stream()
                .flatMap(rule -> rule.getTo().stream())
                .map(NetworkPolicyPeer::getIpBlock)
                .filter(Objects::nonNull)
                .map(block -> block.getCidr())
                .toList();
    }
}
