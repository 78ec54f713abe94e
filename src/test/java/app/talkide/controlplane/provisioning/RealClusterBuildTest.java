package app.talkide.controlplane.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.support.RealCluster;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.identity.IdentityTokens;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A build Job on a real API server ({@link RealCluster}: the cluster of {@code TALKIDE_TEST_KUBECONFIG}, else
 * K3s), as docs/builds.md describes it. Tagged like {@link RealClusterProvisioningTest} and run by the same CI
 * jobs: left out of the normal run, and selected it needs a kubeconfig or Docker and fails without both, never
 * skips.
 */
@Tag(RealClusterProvisioningTest.TAG)
class RealClusterBuildTest {

    static final String STORAGE_CLASS = "talkide-build-test";

    @TempDir
    Path dataDir;

    /**
     * One small Gradle build end to end (docs/builds.md): a worker's request over HTTP with a minted
     * WorkerToken, the leader's Job on the cluster, its log and outcome. Provisioning is off here, so the test
     * puts the session volume (with a one-task project in its working tree) and the Gradle cache in place
     * itself, on hostPath volumes of the one node. The project's build script uses only what every Gradle
     * since 4 understands (Debian's is 4.4).
     */
    @Test
    void aGradleBuildRunsAsAJobAndItsLogAndOutcomeReachTheWorker() {
        KubernetesClient client = RealCluster.admin();
        TenantEnvironmentId acme = TenantEnvironmentId.of("acme", "builds");
        String namespace = acme.namespace();
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build())
                .create();
        for (String claim : List.of(ManagedNames.SESSIONS_VOLUME, "gradle-cache")) {
            RealCluster.hostPathVolume(client, namespace, STORAGE_CLASS, "build-test-" + claim, "ReadWriteOnce");
            client.persistentVolumeClaims()
                    .inNamespace(namespace)
                    .resource(new PersistentVolumeClaimBuilder()
                            .withNewMetadata()
                            .withName(claim)
                            .endMetadata()
                            .withNewSpec()
                            .withAccessModes("ReadWriteOnce")
                            .withStorageClassName(STORAGE_CLASS)
                            .withVolumeName("build-test-" + claim)
                            .withNewResources()
                            .addToRequests("storage", new Quantity("1Gi"))
                            .endResources()
                            .endSpec()
                            .build())
                    .create();
        }
        seedProject(client, namespace);
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir,
                "--talkide.worker.runtime=kubernetes",
                "--talkide.provisioning.enabled=false",
                "--talkide.provisioning.leader.lease-namespace=default",
                "--talkide.builds.enabled=true",
                "--talkide.builds.gradle.builder-image=" + RealCluster.gradleImage(),
                "--talkide.builds.gradle.resources.cpu-request=100m",
                "--talkide.builds.gradle.resources.memory-request=256Mi"));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("k3sKubernetesClient", client))
                .run(args.toArray(String[]::new))) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> app.getBean(LeaderElection.class).isLeader());
            TestHttp http = new TestHttp(
                    ((WebServerApplicationContext) app).getWebServer().getPort());
            app.getBean(TenantEnvironments.class).register(acme);
            app.getBean(Memberships.class).grant(acme, "dev");
            var conversation = app.getBean(Conversations.class).start(acme, "dev", "build");
            String identity = app.getBean(IdentityTokens.class).issue(acme).token();
            String token = http.postJson(
                            "/api/v1/worker-gateway/token/mint",
                            "{\"conversationId\":\"" + conversation.id() + "\"}",
                            "Authorization",
                            "Bearer " + identity)
                    .json()
                    .get("token")
                    .asString();

            TestHttp.Response started = http.postJson(
                    "/api/internal/worker/builds",
                    "{\"kind\":\"gradle\",\"tasks\":[\"hello\"]}",
                    "X-Worker-Token",
                    token);
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            String build =
                    "/api/internal/worker/builds/" + started.json().get("id").asString();

            // Pulling the Gradle image dominates on a fresh cluster.
            await().atMost(Duration.ofMinutes(10))
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> !List.of("queued", "running")
                            .contains(http.get(build, "X-Worker-Token", token)
                                    .json()
                                    .get("state")
                                    .asString()));
            assertThat(http.get(build, "X-Worker-Token", token)
                            .json()
                            .get("state")
                            .asString())
                    .isEqualTo("succeeded");
            try (var log = SseClient.connect(
                    "http://127.0.0.1:"
                            + ((WebServerApplicationContext) app).getWebServer().getPort() + build + "/logs",
                    "X-Worker-Token",
                    token)) {
                await().atMost(Duration.ofSeconds(30)).until(log::ended);
                assertThat(log.events())
                        .extracting(SseClient.Event::data)
                        .anySatisfy(line -> assertThat(line).contains("hello from the build"));
            }
        }
    }

    /** A one-task Gradle project in the working tree, written by a pod as the worker's user would. */
    private static void seedProject(KubernetesClient client, String namespace) {
        String script = "echo \"rootProject.name = 'demo'\" > /w/settings.gradle"
                + " && echo \"task hello { doLast { println 'hello from the build' } }\""
                + " > /w/build.gradle";
        var pod = new PodBuilder()
                .withNewMetadata()
                .withName("seed-project")
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withNewSecurityContext()
                .withRunAsUser(10001L)
                .withFsGroup(10001L)
                .endSecurityContext()
                .addNewContainer()
                .withName("seed")
                .withImage(RealCluster.shellImage())
                .withCommand("/bin/busybox", "sh", "-c", script)
                .addNewVolumeMount()
                .withName("sessions")
                .withMountPath("/w")
                .withSubPath("workspace")
                .endVolumeMount()
                .endContainer()
                .addNewVolume()
                .withName("sessions")
                .withNewPersistentVolumeClaim()
                .withClaimName(ManagedNames.SESSIONS_VOLUME)
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .build();
        client.pods().inNamespace(namespace).resource(pod).create();
        await().atMost(Duration.ofMinutes(3)).until(() -> {
            var status = client.pods()
                    .inNamespace(namespace)
                    .withName("seed-project")
                    .get()
                    .getStatus();
            return status != null && "Succeeded".equals(status.getPhase());
        });
        // The build Job needs the volume next (ReadWriteOnce on one node: K3s has just one).
        client.pods().inNamespace(namespace).withName("seed-project").delete();
    }
}
