package app.talkide.controlplane.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.provisioning.objects.NamespaceLimitsBuilder;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The whole provisioning path against a real API server (K3s): the application in {@code kubernetes}
 * mode with its own beans (leader election, scheduler, the reconciler the application defines, the
 * informer), a tenant-environment set through the admin API with its own worker image, and every object it
 * owns appearing in the cluster, the Deployment running that image.
 * Needs Docker; skipped where there is none (the development machines), run in CI where there is.
 */
@Testcontainers(disabledWithoutDocker = true)
class RealClusterProvisioningTest {

    @Container
    static final K3sContainer k3s = new K3sContainer(DockerImageName.parse("rancher/k3s:v1.31.4-k3s1"));

    static final String IMAGE = "ghcr.io/talkide/worker:test";

    @TempDir
    Path dataDir;

    @Test
    void tenantEnvironmentSetThroughTheAdminApiIsProvisionedInTheCluster() {
        KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml()))
                .build();
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir,
                "--talkide.worker.runtime=kubernetes",
                "--talkide.provisioning.leader.lease-namespace=default"));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("k3sKubernetesClient", client))
                .run(args.toArray(String[]::new))) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> app.getBean(LeaderElection.class).isLeader());
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            TenantEnvironmentId acme = TenantEnvironmentId.of("acme", "k3s");

            // The desired-state API (docs/provisioning.md, "Desired state API"); defaults for the rest.
            TestHttp.Response put = new TestHttp(port)
                    .send(new TestHttp(port)
                            .request("/api/admin/tenant-environments/acme/k3s")
                            .header("Authorization", TestHttp.basic("dev", "dev"))
                            .header("Content-Type", "application/json")
                            .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(
                                    "{\"workerImage\":\"" + IMAGE + "\"}"))
                            .build());
            assertThat(put.status()).isBetween(200, 299);
            // An unknown field would be ignored and the default image used: check the API took it.
            assertThat(put.json().path("desiredState").path("workerImage").asString())
                    .isEqualTo(IMAGE);

            String namespace = acme.namespace();
            // Every object docs/provisioning.md lists, by kind and name.
            Map<Class<? extends HasMetadata>, String> objects = new LinkedHashMap<>();
            objects.put(ResourceQuota.class, NamespaceLimitsBuilder.NAME);
            objects.put(LimitRange.class, NamespaceLimitsBuilder.NAME);
            objects.put(ServiceAccount.class, ManagedNames.WORKER);
            objects.put(Secret.class, ManagedNames.WORKER_SECRET);
            objects.put(PersistentVolumeClaim.class, ManagedNames.SESSIONS_VOLUME);
            objects.put(NetworkPolicy.class, ManagedNames.WORKER);
            objects.put(Service.class, ManagedNames.WORKER);
            objects.put(Deployment.class, ManagedNames.WORKER);
            await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
                assertThat(client.namespaces().withName(namespace).get())
                        .as("Namespace")
                        .isNotNull();
                objects.forEach((kind, name) -> assertThat(client.resources(kind)
                                .inNamespace(namespace)
                                .withName(name)
                                .get())
                        .as(kind.getSimpleName() + " " + name)
                        .isNotNull());
            });
            Deployment deployment = client.apps()
                    .deployments()
                    .inNamespace(namespace)
                    .withName(ManagedNames.WORKER)
                    .get();
            assertThat(deployment.getSpec().getTemplate().getSpec().getContainers())
                    .singleElement()
                    .satisfies(container -> assertThat(container.getImage()).isEqualTo(IMAGE));
            assertThat(client.namespaces()
                            .withName(namespace)
                            .get()
                            .getMetadata()
                            .getLabels())
                    .containsEntry(ManagedNames.MANAGED_BY_LABEL, ManagedNames.MANAGED_BY);
        }
    }
}
