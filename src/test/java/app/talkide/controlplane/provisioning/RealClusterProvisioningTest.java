package app.talkide.controlplane.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.helm.RenderedChart;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.provisioning.objects.NamespaceLimitsBuilder;
import app.talkide.controlplane.support.RealCluster;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The whole provisioning path against a real API server ({@link RealCluster}: the cluster of
 * {@code TALKIDE_TEST_KUBECONFIG}, else K3s), with the control plane holding only what the chart grants it: the
 * chart's RBAC (and, on Kubernetes 1.30+, its ValidatingAdmissionPolicy) is rendered from {@code helm/} and
 * applied, and the application's client authenticates with a token of the chart's ServiceAccount, not with
 * the cluster's admin credentials. A tenant-environment set through the admin API gets every object it owns, its
 * worker pod (the real worker image, {@code TALKIDE_REAL_CLUSTER_WORKER_IMAGE}) becomes ready, and a
 * steady-state pass then writes nothing, against the real API server's defaulting. A second
 * tenant-environment on a class that cannot bind ReadWriteMany here (K3s' {@code local-path}; absent on the
 * local cluster) shows {@code session-volume-unbound}.
 *
 * <p>Tagged {@value #TAG} and left out of the normal run (surefire's {@code test.excludedGroups}); selected,
 * it needs a kubeconfig or Docker and fails without both, never skips: GitLab CI's {@code real-cluster} job
 * and {@code scripts/cluster/e2e} select it (docs/provisioning.md, "Real-cluster test").
 */
@Tag(RealClusterProvisioningTest.TAG)
class RealClusterProvisioningTest {

    static final String TAG = "real-cluster";

    /** The chart's release namespace, as {@link RenderedChart} renders it. */
    static final String RELEASE_NAMESPACE = "talkide-prod";

    /** A ReadWriteMany class of our own: one hostPath volume made world-writable on the K3s node. */
    static final String RWX_CLASS = "talkide-rwx-test";

    static final String PULL_SECRET = "talkide-registry";

    final KubernetesSerialization serialization = new KubernetesSerialization();

    @TempDir
    Path dataDir;

    @Test
    void underTheChartsRbacATenantEnvironmentGetsAReadyWorkerAndASteadyStateWritesNothing() throws Exception {
        String image = required("TALKIDE_REAL_CLUSTER_WORKER_IMAGE");
        KubernetesClient admin = RealCluster.admin();
        String serviceAccount = applyChartRbac(admin);
        KubernetesClient controlPlane = clientAs(admin, serviceAccount);
        // Not an admin: nothing cluster-wide beyond what the chart grants.
        assertThatThrownBy(() -> controlPlane.secrets().inAnyNamespace().list())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(403));
        sessionStorage(admin);

        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir,
                "--talkide.worker.runtime=kubernetes",
                "--talkide.provisioning.control-plane-namespace=" + RELEASE_NAMESPACE,
                "--talkide.provisioning.tenant-access.cluster-role=" + tenantClusterRole(),
                "--talkide.provisioning.tenant-access.service-account=" + serviceAccount,
                "--talkide.provisioning.leader.lease-namespace=" + RELEASE_NAMESPACE,
                "--talkide.provisioning.session-volume-bind-timeout=20s",
                "--talkide.provisioning.schedule.resync-interval=15s"));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("k3sKubernetesClient", controlPlane))
                .run(args.toArray(String[]::new))) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> app.getBean(LeaderElection.class).isLeader());
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            TenantEnvironmentId acme = TenantEnvironmentId.of("acme", "k3s");
            String pullSecrets =
                    System.getenv("TALKIDE_REAL_CLUSTER_REGISTRY") == null ? "[]" : "[\"" + PULL_SECRET + "\"]";
            TestHttp.Response put = put(port, acme, """
                    {"workerImage":"%s","storageClass":"%s","pod":{"imagePullSecrets":%s}}
                    """.formatted(image, RWX_CLASS, pullSecrets));
            assertThat(put.status()).isBetween(200, 299);
            assertThat(put.json().path("desiredState").path("workerImage").asString())
                    .isEqualTo(image);

            String namespace = acme.namespace();
            await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
                assertThat(admin.namespaces().withName(namespace).get()).isNotNull();
                owned().forEach(object -> assertThat(admin.resources(object.getKey())
                                .inNamespace(namespace)
                                .withName(object.getValue())
                                .get())
                        .as(object.getKey().getSimpleName() + " " + object.getValue())
                        .isNotNull());
            });
            pullSecret(admin, namespace);

            // The worker actually runs: image pulled, volume bound, probes answered, under the restricted pod.
            await().atMost(Duration.ofMinutes(5)).untilAsserted(() -> {
                Deployment deployment = admin.apps()
                        .deployments()
                        .inNamespace(namespace)
                        .withName(ManagedNames.WORKER)
                        .get();
                assertThat(deployment.getStatus().getReadyReplicas())
                        .isNotNull()
                        .isPositive();
            });
            TenantEnvironments tenants = app.getBean(TenantEnvironments.class);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> tenants.get(acme).status() == TenantEnvironmentStatus.READY);

            // Steady state against the real API server's defaulting: a pass writes nothing.
            Map<String, String> versions = specVersions(admin, namespace);
            TenantEnvironmentReconciler reconciler = app.getBean(TenantEnvironmentReconciler.class);
            assertThat(reconciler.reconcile(acme).writes()).isZero();
            assertThat(reconciler.reconcile(acme).writes()).isZero();
            assertThat(specVersions(admin, namespace)).isEqualTo(versions);

            // A class that cannot bind ReadWriteMany: a clear status after the bounded wait, not PROVISIONING.
            TenantEnvironmentId blocked = TenantEnvironmentId.of("acme", "rwo");
            assertThat(put(port, blocked, "{\"workerImage\":\"%s\",\"storageClass\":\"local-path\"}".formatted(image))
                            .status())
                    .isBetween(200, 299);
            await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
                var environment = tenants.get(blocked);
                assertThat(environment.status()).isEqualTo(TenantEnvironmentStatus.DEGRADED);
                assertThat(environment.statusReason()).startsWith("session-volume-unbound:");
            });
        }
    }

    /**
     * Applies the chart's ServiceAccount, ClusterRoles, bindings, leader-election Role and (where the API server
     * has it: Kubernetes 1.30+) admission policy, as {@code helm install} would; returns the ServiceAccount's name.
     */
    private String applyChartRbac(KubernetesClient admin) {
        admin.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(RELEASE_NAMESPACE)
                        .endMetadata()
                        .build())
                .createOr(NonDeletingOperation::update);
        Set<String> kinds =
                new HashSet<>(Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"));
        if (RealCluster.serverAtLeast(admin, 1, 30)) {
            kinds.addAll(Set.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"));
        }
        String serviceAccount = null;
        for (Map<String, Object> tree : RenderedChart.render(t -> t.set("admissionPolicy.enabled", true))) {
            if (!kinds.contains(String.valueOf(tree.get("kind")))) {
                continue;
            }
            HasMetadata object = serialization.convertValue(tree, HasMetadata.class);
            if (object instanceof ServiceAccount) {
                serviceAccount = object.getMetadata().getName();
            }
            if (object instanceof Namespaced && object.getMetadata().getNamespace() == null) {
                object.getMetadata().setNamespace(RELEASE_NAMESPACE);
            }
            admin.resource(object).createOr(NonDeletingOperation::update);
        }
        assertThat(serviceAccount).as("the chart's ServiceAccount").isNotNull();
        return serviceAccount;
    }

    private static String tenantClusterRole() {
        return RenderedChart.render(t -> t).stream()
                .filter(tree -> "ClusterRole".equals(tree.get("kind")))
                .map(tree -> String.valueOf(((Map<?, ?>) tree.get("metadata")).get("name")))
                .filter(name -> name.endsWith("-tenant"))
                .findFirst()
                .orElseThrow();
    }

    /** The control plane's client: K3s' address and CA, but the ServiceAccount's token instead of admin's cert. */
    private static KubernetesClient clientAs(KubernetesClient admin, String serviceAccount) {
        String token = admin.serviceAccounts()
                .inNamespace(RELEASE_NAMESPACE)
                .withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(3600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
        Config config = new ConfigBuilder(admin.getConfiguration())
                .withClientCertData(null)
                .withClientKeyData(null)
                .withClientCertFile(null)
                .withClientKeyFile(null)
                .withUsername(null)
                .withPassword(null)
                .withOauthToken(token)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /**
     * A ReadWriteMany volume for the session claim (K3s' own local-path class only does ReadWriteOnce; the local
     * cluster has no provisioner): one hostPath directory on the node, made world-writable.
     */
    private static void sessionStorage(KubernetesClient admin) {
        String directory = RealCluster.nodeDirectory(admin, RELEASE_NAMESPACE, "sessions");
        admin.storage()
                .v1()
                .storageClasses()
                .resource(new StorageClassBuilder()
                        .withNewMetadata()
                        .withName(RWX_CLASS)
                        .endMetadata()
                        .withProvisioner("kubernetes.io/no-provisioner")
                        .withVolumeBindingMode("Immediate")
                        .build())
                .createOr(NonDeletingOperation::update);
        admin.persistentVolumes()
                .resource(new PersistentVolumeBuilder()
                        .withNewMetadata()
                        .withName("talkide-sessions")
                        .endMetadata()
                        .withNewSpec()
                        .withStorageClassName(RWX_CLASS)
                        .withAccessModes("ReadWriteMany")
                        .addToCapacity("storage", new Quantity("10Gi"))
                        .withNewHostPath()
                        .withPath(directory)
                        .withType("Directory")
                        .endHostPath()
                        .endSpec()
                        .build())
                .createOr(NonDeletingOperation::update);
    }

    /** Where the worker image lives in a private registry (CI's), its pull Secret in the tenant namespace. */
    private static void pullSecret(KubernetesClient admin, String namespace) {
        String registry = System.getenv("TALKIDE_REAL_CLUSTER_REGISTRY");
        if (registry == null) {
            return;
        }
        String auth = Base64.getEncoder()
                .encodeToString((required("TALKIDE_REAL_CLUSTER_REGISTRY_USER") + ":"
                                + required("TALKIDE_REAL_CLUSTER_REGISTRY_PASSWORD"))
                        .getBytes(StandardCharsets.UTF_8));
        String config = "{\"auths\":{\"" + registry + "\":{\"auth\":\"" + auth + "\"}}}";
        admin.secrets()
                .inNamespace(namespace)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(PULL_SECRET)
                        .endMetadata()
                        .withType("kubernetes.io/dockerconfigjson")
                        .addToStringData(".dockerconfigjson", config)
                        .build())
                .create();
    }

    /**
     * What a write would change: the resourceVersion of every owned object without a status (ResourceQuota and
     * PVC have one their controllers update; the pass's own count covers them), and the Deployment's
     * generation, which only a spec change raises (its status moves the resourceVersion).
     */
    private static Map<String, String> specVersions(KubernetesClient admin, String namespace) {
        Map<String, String> versions = new LinkedHashMap<>();
        for (var object : owned()) {
            if (object.getKey() == ResourceQuota.class || object.getKey() == PersistentVolumeClaim.class) {
                continue;
            }
            HasMetadata live = admin.resources(object.getKey())
                    .inNamespace(namespace)
                    .withName(object.getValue())
                    .get();
            versions.put(
                    object.getKey().getSimpleName() + " " + object.getValue(),
                    live instanceof Deployment
                            ? "generation " + live.getMetadata().getGeneration()
                            : live.getMetadata().getResourceVersion());
        }
        return versions;
    }

    /** Everything the control plane creates in a tenant namespace, by kind and name. */
    private static List<Map.Entry<Class<? extends HasMetadata>, String>> owned() {
        return List.of(
                Map.entry(ResourceQuota.class, NamespaceLimitsBuilder.NAME),
                Map.entry(LimitRange.class, NamespaceLimitsBuilder.NAME),
                Map.entry(ServiceAccount.class, ManagedNames.WORKER),
                Map.entry(RoleBinding.class, ManagedNames.CONTROL_PLANE_ACCESS),
                Map.entry(Secret.class, ManagedNames.WORKER_SECRET),
                Map.entry(PersistentVolumeClaim.class, ManagedNames.SESSIONS_VOLUME),
                Map.entry(NetworkPolicy.class, ManagedNames.WORKER),
                Map.entry(Service.class, ManagedNames.WORKER),
                Map.entry(Deployment.class, ManagedNames.WORKER));
    }

    private static TestHttp.Response put(int port, TenantEnvironmentId id, String body) {
        TestHttp http = new TestHttp(port);
        return http.send(http.request("/api/admin/tenant-environments/" + id.tenant() + "/" + id.env())
                .header("Authorization", TestHttp.basic("dev", "dev"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    /** Selected, this test runs or fails: a missing setting is an error, not a reason to skip. */
    private static String required(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(variable + " must be set for the real-cluster test (see .gitlab-ci.yml)");
        }
        return value;
    }
}
