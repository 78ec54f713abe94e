package app.talkide.controlplane.provisioning.objects;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.provisioning.ProvisioningFixtures;
import app.talkide.controlplane.provisioning.ProvisioningProperties;
import app.talkide.controlplane.provisioning.WorkerMcpConfig;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.provisioning.desired.DesiredStateSpec;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The builders are pure: the objects of a tenant-environment follow from its id, desired state and settings. */
class TenantEnvironmentObjectsTest {

    static final TenantEnvironmentId ACME_DEV = TenantEnvironmentId.of("acme", "dev");
    static final ProvisioningProperties PROPERTIES = ProvisioningFixtures.properties(
            "control-plane-namespace", "talkide-prod",
            "control-plane-pod-labels.[app.kubernetes.io/name]", "talkide-control-plane",
            "gateway-base-url", "http://cp.talkide-prod.svc:8080",
            "control-plane-url", "http://cp.talkide-prod.svc:8080/");
    static final DesiredState DESIRED = new DesiredStateSpec(
                    "registry.example.com/worker:1.4",
                    new ProvisioningProperties.Resources("500m", "1Gi", "2", "4Gi"),
                    "nfs-client",
                    "20Gi",
                    null,
                    Map.of("team", "blue"),
                    null)
            .resolve(PROPERTIES);

    final Map<String, HasMetadata> objects =
            TenantEnvironmentObjects.inNamespace(
                            ACME_DEV, DESIRED, PROPERTIES, "tkwi_secret", "k1:AAAA", "2026-01-01T00:00:00Z")
                    .stream()
                    .filter(o -> !o.getMetadata().getName().equals(ManagedNames.CONTROL_PLANE_ACCESS))
                    .filter(o -> !o.getMetadata().getName().equals(ManagedNames.WORKER_MCP_SECRET))
                    .collect(Collectors.toMap(HasMetadata::getKind, Function.identity()));

    @Test
    void theControlPlanesOwnAccessComesFirstAndBindsTheChartsTenantRoleToItsServiceAccount() {
        HasMetadata first = TenantEnvironmentObjects.inNamespace(ACME_DEV, DESIRED, PROPERTIES, "t", "k", "r")
                .get(0);
        assertThat(first).isInstanceOfSatisfying(RoleBinding.class, access -> {
            assertThat(access.getMetadata().getName()).isEqualTo(ManagedNames.CONTROL_PLANE_ACCESS);
            assertThat(access.getMetadata().getNamespace()).isEqualTo("acme-dev");
            assertThat(access.getRoleRef().getKind()).isEqualTo("ClusterRole");
            assertThat(access.getRoleRef().getName()).isEqualTo("talkide-control-plane-tenant");
            assertThat(access.getSubjects()).singleElement().satisfies(subject -> {
                assertThat(subject.getKind()).isEqualTo("ServiceAccount");
                assertThat(subject.getName()).isEqualTo("talkide-control-plane");
                assertThat(subject.getNamespace()).isEqualTo(PROPERTIES.controlPlaneNamespace());
            });
        });
    }

    @Test
    void everyObjectLivesInTheNamespaceAndCarriesTheManagedAndExtraLabels() {
        assertThat(objects.keySet())
                .containsExactlyInAnyOrder(
                        "ResourceQuota",
                        "LimitRange",
                        "ServiceAccount",
                        "Secret",
                        "PersistentVolumeClaim",
                        "NetworkPolicy",
                        "Service",
                        "Deployment");
        assertThat(objects.values()).allSatisfy(object -> {
            assertThat(object.getMetadata().getNamespace()).isEqualTo("acme-dev");
            assertThat(object.getMetadata().getLabels())
                    .containsAllEntriesOf(ManagedNames.labelsOf(ACME_DEV))
                    .containsEntry("team", "blue");
        });
    }

    @Test
    void theMcpServerListIsASecretOfItsOwnInTheFormTheWorkerReads() {
        var servers = List.of(
                new McpServer("docs", "https://mcp.example.com/mcp", null, Map.of("Authorization", "Bearer x")),
                new McpServer("search", "https://search.example.com/sse", "sse", null));
        Secret secret = WorkerMcpSecretBuilder.build(ACME_DEV, DESIRED.withMcpServers(servers));

        assertThat(secret.getMetadata().getName()).isEqualTo(ManagedNames.WORKER_MCP_SECRET);
        assertThat(secret.getMetadata().getNamespace()).isEqualTo("acme-dev");
        assertThat(secret.getMetadata().getLabels()).containsAllEntriesOf(ManagedNames.labelsOf(ACME_DEV));
        String file = new String(
                java.util.Base64.getDecoder().decode(secret.getData().get(WorkerMcpConfig.FILE_NAME)),
                java.nio.charset.StandardCharsets.UTF_8);
        assertThat(file)
                .isEqualTo("{\"mcpServers\":{\"docs\":{\"type\":\"http\",\"url\":\"https://mcp.example.com/mcp\","
                        + "\"headers\":{\"Authorization\":\"Bearer x\"}},\"search\":{\"type\":\"sse\","
                        + "\"url\":\"https://search.example.com/sse\"}}}");
        assertThat(servers.getFirst().toString()).doesNotContain("Bearer x");
        // The same list renders the same bytes: a steady state writes nothing.
        assertThat(WorkerMcpSecretBuilder.build(ACME_DEV, DESIRED.withMcpServers(servers)))
                .isEqualTo(secret);
        assertThat(TenantEnvironmentObjects.inNamespace(ACME_DEV, DESIRED, PROPERTIES, "t", "k", "r"))
                .filteredOn(object -> object.getMetadata().getName().equals(ManagedNames.WORKER_MCP_SECRET))
                .hasSize(1);
    }

    @Test
    void namespaceIsNamedAfterTheTenantEnvironmentAndMarkedAsOurs() {
        Namespace namespace = TenantNamespaceBuilder.build(ACME_DEV, DESIRED);
        assertThat(namespace.getMetadata().getName()).isEqualTo("acme-dev");
        assertThat(namespace.getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/managed-by", "talkide-control-plane")
                .containsEntry("talkide.app/tenant", "acme")
                .containsEntry("talkide.app/env", "dev")
                .containsEntry("pod-security.kubernetes.io/enforce", "baseline");
    }

    @Test
    void workerHoldsNoKubernetesCredentials() {
        // Builds are Jobs the control plane runs for the worker (docs/builds.md): no Role, no token in the pod.
        assertThat(objects).doesNotContainKeys("Role");
        ServiceAccount account = (ServiceAccount) objects.get("ServiceAccount");
        assertThat(account.getMetadata().getName()).isEqualTo("talkide-worker");
        assertThat(account.getAutomountServiceAccountToken()).isFalse();
        Deployment deployment = (Deployment) objects.get("Deployment");
        assertThat(deployment.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
                .isFalse();
    }

    @Test
    void secretHoldsTheIdentityTokenAndTheCommandKey() {
        Secret secret = (Secret) objects.get("Secret");
        assertThat(secret.getMetadata().getName()).isEqualTo("talkide-worker-token");
        assertThat(decode(secret.getData().get("identity-token"))).isEqualTo("tkwi_secret");
        assertThat(decode(secret.getData().get("command-key"))).isEqualTo("k1:AAAA");
        assertThat(WorkerSecretBuilder.read(secret, "identity-token")).isEqualTo("tkwi_secret");
    }

    @Test
    void sessionVolumeIsSharedReadWriteManyOfTheChosenClassAndSize() {
        PersistentVolumeClaim claim = (PersistentVolumeClaim) objects.get("PersistentVolumeClaim");
        assertThat(claim.getMetadata().getName()).isEqualTo("claude-sessions");
        assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
        assertThat(claim.getSpec().getStorageClassName()).isEqualTo("nfs-client");
        assertThat(claim.getSpec().getResources().getRequests()).containsEntry("storage", new Quantity("20Gi"));
    }

    @Test
    void deploymentRunsTheWorkerLockedDownWithTheContractsEnvironment() {
        Deployment deployment = (Deployment) objects.get("Deployment");
        assertThat(deployment.getMetadata().getName()).isEqualTo("talkide-worker");
        assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry(ManagedNames.ROLLED_AT_ANNOTATION, "2026-01-01T00:00:00Z");
        assertThat(deployment
                        .getSpec()
                        .getStrategy()
                        .getRollingUpdate()
                        .getMaxUnavailable()
                        .getIntVal())
                .isZero();
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        assertThat(pod.getServiceAccountName()).isEqualTo("talkide-worker");
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(10001L);
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(pod.getSecurityContext().getSeccompProfile().getLocalhostProfile())
                .isNull();
        Container worker = pod.getContainers().get(0);
        assertThat(worker.getImage()).isEqualTo("registry.example.com/worker:1.4");
        assertThat(worker.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(worker.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(worker.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(worker.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(worker.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(worker.getResources().getRequests()).containsEntry("cpu", new Quantity("500m"));
        assertThat(worker.getResources().getLimits()).containsEntry("memory", new Quantity("4Gi"));
        assertThat(worker.getVolumeMounts()).anySatisfy(mount -> {
            assertThat(mount.getName()).isEqualTo("claude-sessions");
            assertThat(mount.getMountPath()).isEqualTo("/data/claude");
        });
        Map<String, EnvVar> env =
                worker.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, Function.identity()));
        assertThat(env.get("TALKIDE_GATEWAY_BASE_URL").getValue()).isEqualTo("http://cp.talkide-prod.svc:8080");
        assertThat(env.get("TALKIDE_CONTROL_PLANE_URL").getValue()).isEqualTo("http://cp.talkide-prod.svc:8080/");
        assertThat(env.get("CLAUDE_CONFIG_DIR").getValue()).isEqualTo("/data/claude");
        assertThat(env.get("TALKIDE_TENANT").getValue()).isEqualTo("acme");
        assertThat(env.get("TALKIDE_ENV").getValue()).isEqualTo("dev");
        // The tokens are files of the Secret's volume, never variables (readable in /proc by the tools).
        assertThat(env).doesNotContainKeys("TALKIDE_WORKER_IDENTITY_TOKEN", "TALKIDE_WORKER_COMMAND_KEY");
        assertThat(env.get("TALKIDE_WORKER_SECRETS_DIR").getValue()).isEqualTo("/var/run/secrets/talkide");
        assertThat(env.get("TALKIDE_WORKER_SANDBOX").getValue()).isEqualTo("engine-nested");
        var secretVolume = deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null)
                .findFirst()
                .orElseThrow();
        assertThat(secretVolume.getSecret().getSecretName()).isEqualTo("talkide-worker-token");
        assertThat(secretVolume.getSecret().getDefaultMode()).isEqualTo(0440);
        assertThat(worker.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getName()).isEqualTo(secretVolume.getName());
            assertThat(m.getMountPath()).isEqualTo("/var/run/secrets/talkide");
            assertThat(m.getReadOnly()).isTrue();
        });
        // The working tree is the volume's workspace directory, mounted outside CLAUDE_CONFIG_DIR.
        assertThat(env.get("TALKIDE_WORKSPACE_DIR").getValue()).isEqualTo("/data/workspace");
        assertThat(worker.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/data/workspace");
            assertThat(m.getSubPath()).isEqualTo("workspace");
        });
        // The token reaches the pod only through the Secret, never as a literal in the Deployment.
        assertThat(deployment.toString()).doesNotContain("tkwi_secret");
    }

    @Test
    void serviceAndNetworkPolicyAdmitOnlyTheControlPlaneOnTheWorkerPort() {
        Service service = (Service) objects.get("Service");
        assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(8080);
        assertThat(service.getSpec().getSelector())
                .isEqualTo(((Deployment) objects.get("Deployment"))
                        .getSpec()
                        .getSelector()
                        .getMatchLabels());
        NetworkPolicy policy = (NetworkPolicy) objects.get("NetworkPolicy");
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
        assertThat(policy.getSpec().getIngress()).hasSize(1);
        var peer = policy.getSpec().getIngress().get(0).getFrom();
        assertThat(peer).hasSize(1);
        assertThat(peer.get(0).getNamespaceSelector().getMatchLabels())
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "talkide-prod"));
        assertThat(peer.get(0).getPodSelector().getMatchLabels())
                .isEqualTo(Map.of("app.kubernetes.io/name", "talkide-control-plane"));
        assertThat(policy.getSpec()
                        .getIngress()
                        .get(0)
                        .getPorts()
                        .get(0)
                        .getPort()
                        .getIntVal())
                .isEqualTo(8080);
    }

    @Test
    void quotaAndLimitRangeBoundTheWorkerAndItsBuildJobs() {
        ResourceQuota quota = (ResourceQuota) objects.get("ResourceQuota");
        assertThat(quota.getSpec().getHard())
                .containsEntry("requests.cpu", new Quantity("8"))
                .containsEntry("limits.memory", new Quantity("16Gi"))
                .containsEntry("count/jobs.batch", new Quantity("10"))
                .containsEntry("pods", new Quantity("20"));
        LimitRange limits = (LimitRange) objects.get("LimitRange");
        assertThat(limits.getSpec().getLimits().get(0).getType()).isEqualTo("Container");
        assertThat(limits.getSpec().getLimits().get(0).getDefaultRequest()).containsEntry("cpu", new Quantity("250m"));
    }

    @Test
    void unsetFieldsFollowTheConfiguredDefaults() {
        DesiredState defaults = ProvisioningFixtures.defaults(PROPERTIES);
        PersistentVolumeClaim claim = SessionVolumeBuilder.build(ACME_DEV, defaults);
        assertThat(claim.getSpec().getStorageClassName()).isNull();
        assertThat(claim.getSpec().getResources().getRequests()).containsEntry("storage", new Quantity("10Gi"));
        assertThat(List.of(defaults.workerImage())).containsExactly("registry.example.com/talkide/worker:0.1.0");
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
    }
}
