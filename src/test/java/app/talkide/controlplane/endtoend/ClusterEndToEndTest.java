package app.talkide.controlplane.endtoend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.objects.WorkerDeploymentBuilder;
import app.talkide.controlplane.support.RealCluster;
import app.talkide.controlplane.support.TestHttp;
import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;

/**
 * The product in a real cluster, through its public APIs only: the chart installed with Helm (the control plane as
 * a pod under the chart's ServiceAccount and ClusterRole, never an admin), PostgreSQL in the cluster, the built-in
 * Anthropic simulator as the upstream, the real worker image. Then a tenant-environment through the admin API, a
 * conversation through the browser API whose turn runs a real Bash tool, a worker pod deleted mid-turn, an
 * identity-token rotation, a Gradle build Job, an image-build Job (accepted by the API server; its kaniko image
 * cannot be pulled here) and the tenant-environment's deletion.
 *
 * <p>The cluster is {@link RealCluster}'s; the images come from the environment ({@code scripts/cluster/e2e} builds
 * them here and sets the variables). The steps run in order and share the installation; each names what failed.
 *
 * <p>The control plane runs with {@code talkide.mode: local}: that is the setting under which the simulator is the
 * upstream (docs/simulator.md) and browser users are the configured local users (the cluster has no identity
 * provider). Everything else is the chart's production wiring: its Secrets, PostgreSQL, provisioning through
 * fabric8 under the chart's RBAC.
 */
@Tag(ClusterEndToEndTest.TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterEndToEndTest {

    static final String TAG = "cluster-e2e";
    static final String NAMESPACE = "talkide-e2e";
    static final String RELEASE = "e2e"; // not the real-cluster tests' "talkide": their ClusterRoles stay
    static final String STORAGE_CLASS = "talkide-e2e-rwx";
    static final String TENANT = "e2e";
    static final String ENV = "ci";
    static final String TENANT_NAMESPACE = TENANT + "-" + ENV;
    static final String ADMIN_USER = "e2e-admin";
    /**
     * The maintained kaniko fork's executor. No registry is reachable from this cluster ({@code scripts/cluster/up}
     * points ghcr.io at a closed loopback port), so its pod cannot pull it: the Job is checked as the API server
     * stored it, and its pod for the pull failure.
     */
    static final String KANIKO_IMAGE = "ghcr.io/kaniko-build/dist/mzihlmann-kaniko/executor:v1.24.3";

    static final String REGISTRY_PREFIX = "registry.talkide-e2e.invalid/{tenant}/{env}/";
    static final String DESTINATION = "registry.talkide-e2e.invalid/" + TENANT + "/" + ENV + "/app:1";

    final SecureRandom random = new SecureRandom();
    final String adminPassword = HexFormat.of().formatHex(random.generateSeed(16));
    KubernetesClient admin;
    LocalPortForward forward;
    TestHttp http;
    String conversation;
    Map<String, Object> installed;

    @BeforeAll
    void installTheChart() throws Exception {
        admin = RealCluster.admin();
        leftoversOfAnEarlierRunRemoved();
        admin.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NAMESPACE)
                        .endMetadata()
                        .build())
                .createOr(NonDeletingOperation::update);
        String databasePassword = HexFormat.of().formatHex(random.generateSeed(16));
        postgres(databasePassword);
        // Session volumes and the Gradle cache: hostPath volumes of the one node, ReadWriteMany like NFS.
        for (String volume : List.of("e2e-sessions", "e2e-gradle-cache")) {
            RealCluster.hostPathVolume(admin, NAMESPACE, STORAGE_CLASS, volume, "ReadWriteMany");
        }

        installed = values(databasePassword);
        helm(installed, false);
        Pod controlPlane = admin
                .pods()
                .inNamespace(NAMESPACE)
                .withLabel("app.kubernetes.io/instance", RELEASE)
                .list()
                .getItems()
                .stream()
                .filter(Readiness::isPodReady)
                .findFirst()
                .orElseThrow();
        forward = admin.pods()
                .inNamespace(NAMESPACE)
                .withName(controlPlane.getMetadata().getName())
                .portForward(8080);
        http = new TestHttp(forward.getLocalPort());
    }

    @AfterAll
    void closeTheForward() throws Exception {
        if (forward != null) {
            forward.close();
        }
    }

    @Test
    @Order(2)
    void theControlPlaneIsNoAdministrator() {
        String serviceAccount = admin.pods()
                .inNamespace(NAMESPACE)
                .withLabel("app.kubernetes.io/instance", RELEASE)
                .list()
                .getItems()
                .getFirst()
                .getSpec()
                .getServiceAccountName();
        assertThat(serviceAccount).isNotBlank().isNotEqualTo("default");
        var review = admin.authorization()
                .v1()
                .subjectAccessReview()
                .create(new io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withUser("system:serviceaccount:" + NAMESPACE + ":" + serviceAccount)
                        .withNewResourceAttributes()
                        .withVerb("list")
                        .withResource("secrets")
                        .endResourceAttributes()
                        .endSpec()
                        .build());
        assertThat(review.getStatus().getAllowed())
                .as("list secrets in every namespace")
                .isFalse();
    }

    @Test
    @Order(3)
    void aTenantEnvironmentFromTheAdminApiGetsItsObjectsAndAReadyWorker() {
        // The seeded local-mode tenant-environment is not this test's: its deletion runs alongside.
        assertThat(adminCall("DELETE", "/api/admin/tenant-environments/demo/dev", null)
                        .status())
                .isIn(200, 202, 404);
        TestHttp.Response put = adminCall(
                "PUT",
                "/api/admin/tenant-environments/" + TENANT + "/" + ENV,
                "{\"workerImage\":\"%s\",\"storageClass\":\"%s\"}"
                        .formatted(System.getenv("TALKIDE_REAL_CLUSTER_WORKER_IMAGE"), STORAGE_CLASS));
        assertThat(put.status()).as(put.body()).isBetween(200, 299);
        assertThat(adminCall(
                                "PUT",
                                "/api/admin/tenant-environments/" + TENANT + "/" + ENV + "/members/" + ADMIN_USER,
                                null)
                        .status())
                .isEqualTo(200);

        await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
            assertThat(admin.namespaces().withName(TENANT_NAMESPACE).get()).isNotNull();
            assertThat(admin.secrets()
                            .inNamespace(TENANT_NAMESPACE)
                            .withName("talkide-worker-token")
                            .get())
                    .isNotNull();
            assertThat(admin.rbac()
                            .roleBindings()
                            .inNamespace(TENANT_NAMESPACE)
                            .list()
                            .getItems())
                    .isNotEmpty();
            assertThat(admin.network()
                            .v1()
                            .networkPolicies()
                            .inNamespace(TENANT_NAMESPACE)
                            .list()
                            .getItems())
                    .isNotEmpty();
            assertThat(admin.persistentVolumeClaims()
                            .inNamespace(TENANT_NAMESPACE)
                            .withName("claude-sessions")
                            .get()
                            .getStatus()
                            .getPhase())
                    .isEqualTo("Bound");
        });
        await().atMost(Duration.ofMinutes(5))
                .untilAsserted(() -> assertThat(workerDeployment().getStatus().getReadyReplicas())
                        .isNotNull()
                        .isPositive());
        await().atMost(Duration.ofMinutes(1))
                .untilAsserted(
                        () -> assertThat(adminCall("GET", "/api/admin/tenant-environments/" + TENANT + "/" + ENV, null)
                                        .json()
                                        .path("status")
                                        .asString())
                                .isEqualTo("READY"));
    }

    @Test
    @Order(4)
    void aTurnWithARealBashToolCompletesAndItsOutputIsInTheConversation() {
        TestHttp.Response created = userCall(
                "POST",
                "/api/conversations",
                "{\"tenant\":\"%s\",\"env\":\"%s\",\"title\":\"e2e\"}".formatted(TENANT, ENV));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        conversation = created.json().path("id").asString();

        awaitTurnCompleted(
                send("Look around [[sim:tool_use=Bash {\"command\":\"echo bash-ran-in-$(id -u) && ls -a\"}]]"));
        assertThat(eventData()).contains("bash-ran-in-10001");
    }

    @Test
    @Order(5)
    void mistakenOrHostileBashInThePodReachesNoSecretNoWorkerProcessAndNoWorkerPort() {
        assertThat(conversation).as("the conversation of the previous step").isNotNull();
        // What a prompt-injected command would try first, in the restricted pod's engine sandbox: the Secret's
        // files, the worker's environment through the pod's /proc, and the worker's command port on loopback.
        String probe = "echo secret-files=$(ls -A " + WorkerDeploymentBuilder.SECRETS_DIR + " 2>/dev/null | wc -l);"
                + " cat " + WorkerDeploymentBuilder.SECRETS_DIR + "/* 2>&1 | head -c 200;"
                + " echo environ-talkide=$(tr '\\\\0' '\\\\n' </proc/1/environ 2>/dev/null | grep -c TALKIDE_);"
                + " (echo > /dev/tcp/127.0.0.1/" + ManagedNames.WORKER_PORT + ") 2>/dev/null"
                + " && echo worker-port-open || echo worker-port-closed";
        String before = eventData();
        awaitTurnCompleted(send("Probe [[sim:tool_use=Bash {\"command\":\"" + probe + "\"}]]"));
        String output = eventData().substring(before.length());

        assertThat(output).contains("secret-files=0", "environ-talkide=0", "worker-port-closed");
        assertThat(output).doesNotContain(identityToken());
    }

    @Test
    @Order(6)
    void aWorkerDeletedMidTurnEndsTheTurnAsRestartedAndTheNextTurnHasTheEarlierOnes() {
        assertThat(conversation).as("the conversation of the previous step").isNotNull();
        int before = count("turn.started");
        send("Take your time [[sim:slow=1500]] " + "word ".repeat(200));
        await().atMost(Duration.ofMinutes(2)).until(() -> count("turn.started") > before);
        Pod worker = admin.pods()
                .inNamespace(TENANT_NAMESPACE)
                .withLabel("app.kubernetes.io/name", "talkide-worker")
                .list()
                .getItems()
                .getFirst();
        admin.pods()
                .inNamespace(TENANT_NAMESPACE)
                .resource(worker)
                .withGracePeriod(0)
                .delete();

        await().atMost(Duration.ofMinutes(5)).until(() -> eventData().contains("worker_restarted"));
        // The new pod's engine resumed the session from the volume: its model call carries the earlier turns,
        // which the simulator's recall marker reports (a fresh session would be answered "none").
        String back = send("Are you back? [[sim:recall]]");
        awaitTurnCompleted(back, Duration.ofMinutes(5));
        assertThat(answer(back)).contains("the first “Look around”");
    }

    @Test
    @Order(7)
    void anIdentityTokenRotationKeepsTheWorkerMintingAndRetiresTheOldToken() {
        assertThat(conversation).as("the conversation of the previous steps").isNotNull();
        String old = identityToken();
        TestHttp.Response rotated = adminCall(
                "POST", "/api/admin/tenant-environments/" + TENANT + "/" + ENV + "/identity-tokens/rotate", null);
        assertThat(rotated.status()).as(rotated.body()).isBetween(200, 299);
        await().atMost(Duration.ofMinutes(1)).until(() -> !identityToken().equals(old));
        await().atMost(Duration.ofMinutes(5)).untilAsserted(() -> {
            Deployment deployment = workerDeployment();
            assertThat(deployment.getStatus().getUpdatedReplicas()).isEqualTo(1);
            assertThat(deployment.getStatus().getReadyReplicas()).isEqualTo(1);
            assertThat(deployment.getStatus().getReplicas()).isEqualTo(1);
        });
        // The new pod mints with the new token: its turn reaches the gateway and completes.
        awaitTurnCompleted(send("After the rotation"));
        // The old token stops working once its grace (20 s here) has passed.
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> mint(old) == 401);
        assertThat(mint(identityToken())).isEqualTo(200);
    }

    @Test
    @Order(8)
    void aGradleBuildRunsAsAJobInTheClusterAndItsLogReachesTheConversation() {
        assertThat(conversation).as("the conversation of the previous steps").isNotNull();
        String script = "printf \\\"rootProject.name = 'demo'\\\\n\\\" > settings.gradle"
                + " && printf \\\"task hello { doLast { println 'hello from the e2e build' } }\\\\n\\\" > build.gradle"
                + " && ls";
        awaitTurnCompleted(send("Write the project [[sim:tool_use=Bash {\"command\":\"" + script + "\"}]]"));
        awaitTurnCompleted(
                send(
                        "Build it [[sim:tool_use=mcp__talkide-builds__run_build {\"kind\":\"gradle\",\"tasks\":[\"hello\"]}]]"),
                Duration.ofMinutes(10));
        assertThat(admin.batch()
                        .v1()
                        .jobs()
                        .inNamespace(TENANT_NAMESPACE)
                        .list()
                        .getItems())
                .as("the build Job")
                .isNotEmpty();
        assertThat(eventData()).contains("hello from the e2e build");
    }

    /**
     * An image build requested by the agent's {@code run_build} tool: the leader's Job, as the real API server
     * accepted and defaulted it, carries the spec the product builds; its pod fails to pull the kaniko image (none
     * is reachable here), and interrupting the turn cancels the build and removes the Job and its pod.
     */
    @Test
    @Order(9)
    void anImageBuildJobIsAcceptedByTheApiServerItsPodCannotPullKanikoHereAndAnInterruptRemovesIt() {
        assertThat(conversation).as("the conversation of the previous steps").isNotNull();
        // What the operator puts into each tenant namespace: the push credential kaniko mounts.
        admin.secrets()
                .inNamespace(TENANT_NAMESPACE)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("talkide-registry-credentials")
                        .endMetadata()
                        .withType("kubernetes.io/dockerconfigjson")
                        .addToStringData(".dockerconfigjson", "{\"auths\":{}}")
                        .build())
                .createOr(NonDeletingOperation::update);
        String message = send("Build the image [[sim:tool_use=mcp__talkide-builds__run_build"
                + " {\"kind\":\"image\",\"destination\":\"" + DESTINATION + "\"}]]");

        Job job = await().atMost(Duration.ofMinutes(2)).until(this::imageJob, Objects::nonNull);
        // Defaulted by the API server (a generated selector naming the Job's uid), so not a client-side object.
        assertThat(job.getSpec().getSelector().getMatchLabels())
                .containsEntry("controller-uid", job.getMetadata().getUid());
        assertThat(job.getSpec().getBackoffLimit()).isZero();
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        Container kaniko = pod.getContainers().getFirst();
        assertThat(kaniko.getArgs())
                .containsExactly(
                        "--context=dir:///workspace/.",
                        "--dockerfile=/workspace/Dockerfile",
                        "--destination=" + DESTINATION);
        assertThat(kaniko.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(kaniko.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
        assertThat(kaniko.getVolumeMounts())
                .anySatisfy(mount -> {
                    assertThat(mount.getMountPath()).isEqualTo("/workspace");
                    assertThat(mount.getReadOnly()).isTrue();
                })
                .anySatisfy(mount -> assertThat(mount.getMountPath()).isEqualTo("/kaniko/.docker"));
        String buildId = job.getMetadata().getLabels().get("talkide.app/build-id");
        JsonNode build = build(buildId);
        assertThat(build.path("kind").asString()).isEqualTo("image");
        assertThat(build.path("destination").asString()).isEqualTo(DESTINATION);
        assertThat(build.path("state").asString()).isEqualTo("running");

        // The expected end here: the image cannot be pulled (no registry is reachable from this cluster).
        await().atMost(Duration.ofMinutes(3))
                .untilAsserted(() -> assertThat(buildPods(job))
                        .flatExtracting(ClusterEndToEndTest::waiting)
                        .anySatisfy(waiting -> assertThat(waiting)
                                .matches("(ErrImagePull|ImagePullBackOff): .*")
                                .contains(KANIKO_IMAGE)));

        assertThat(userCall("POST", "/api/conversations/" + conversation + "/interrupt", null)
                        .status())
                .isEqualTo(202);
        await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
            assertThat(turnEnded(events(), "turn.failed", message)).isTrue();
            assertThat(build(buildId).path("state").asString()).isEqualTo("cancelled");
            assertThat(admin.batch()
                            .v1()
                            .jobs()
                            .inNamespace(TENANT_NAMESPACE)
                            .withName(job.getMetadata().getName())
                            .get())
                    .isNull();
            assertThat(buildPods(job)).isEmpty();
        });
    }

    private Job imageJob() {
        return admin
                .batch()
                .v1()
                .jobs()
                .inNamespace(TENANT_NAMESPACE)
                .withLabel("app.kubernetes.io/component", "build")
                .list()
                .getItems()
                .stream()
                .filter(job -> KANIKO_IMAGE.equals(job.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getImage()))
                .findFirst()
                .orElse(null);
    }

    private List<Pod> buildPods(Job job) {
        return admin.pods()
                .inNamespace(TENANT_NAMESPACE)
                .withLabel("controller-uid", job.getMetadata().getUid())
                .list()
                .getItems();
    }

    /** Why the pod's containers wait, as "reason: message". */
    private static List<String> waiting(Pod pod) {
        return pod.getStatus().getContainerStatuses().stream()
                .map(status ->
                        status.getState() == null ? null : status.getState().getWaiting())
                .filter(Objects::nonNull)
                .map(waiting -> waiting.getReason() + ": " + waiting.getMessage())
                .toList();
    }

    /** The build as the browser API shows it to the conversation's owner. */
    private JsonNode build(String id) {
        for (JsonNode build : userCall("GET", "/api/conversations/" + conversation + "/builds", null)
                .json()) {
            if (id.equals(build.path("id").asString())) {
                return build;
            }
        }
        throw new AssertionError("build " + id + " is not among the conversation's builds");
    }

    @Test
    @Order(10)
    void aDeletedTenantEnvironmentLeavesNothingInTheCluster() {
        TestHttp.Response deleted = adminCall("DELETE", "/api/admin/tenant-environments/" + TENANT + "/" + ENV, null);
        assertThat(deleted.status()).as(deleted.body()).isIn(200, 202);
        await().atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> admin.namespaces().withName(TENANT_NAMESPACE).get() == null);
        List<Namespace> managed = admin.namespaces()
                .withLabel("talkide.app/tenant", TENANT)
                .list()
                .getItems();
        assertThat(managed).isEmpty();
        assertThat(admin.rbac()
                        .clusterRoleBindings()
                        .withLabel("talkide.app/tenant", TENANT)
                        .list()
                        .getItems())
                .isEmpty();
        await().atMost(Duration.ofMinutes(1))
                .untilAsserted(
                        () -> assertThat(adminCall("GET", "/api/admin/tenant-environments/" + TENANT + "/" + ENV, null)
                                        .json()
                                        .path("status")
                                        .asString())
                                .isEqualTo("DELETED"));
    }

    /** On a cluster that stayed up since an earlier run: that run's release, namespaces and volumes go first. */
    private void leftoversOfAnEarlierRunRemoved() {
        Helm.uninstall(RELEASE)
                .withNamespace(NAMESPACE)
                .withKubeConfigContents(RealCluster.adminKubeconfig())
                .ignoreNotFound()
                .call();
        for (String namespace : List.of(NAMESPACE, TENANT_NAMESPACE)) {
            admin.namespaces().withName(namespace).delete();
        }
        admin.persistentVolumes().withName("e2e-sessions").delete();
        admin.persistentVolumes().withName("e2e-gradle-cache").delete();
        await().atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> admin.namespaces().withName(NAMESPACE).get() == null
                        && admin.namespaces().withName(TENANT_NAMESPACE).get() == null
                        && admin.persistentVolumes().withName("e2e-sessions").get() == null
                        && admin.persistentVolumes()
                                        .withName("e2e-gradle-cache")
                                        .get()
                                == null);
    }

    /**
     * A second replica brings the chart's PodDisruptionBudget: {@code policy/v1} from Kubernetes 1.21, and
     * {@code policy/v1beta1} before, which the chart picks from what the API server serves.
     */
    @Test
    @Order(11)
    void withTwoReplicasTheChartsDisruptionBudgetUsesThePolicyApiTheServerHas() throws Exception {
        Map<String, Object> values = new LinkedHashMap<>(installed);
        values.put("replicaCount", 2);
        helm(values, true);
        String policy = RealCluster.serverAtLeast(admin, 1, 21) ? "policy/v1" : "policy/v1beta1";
        assertThat(admin.genericKubernetesResources(policy, "PodDisruptionBudget")
                        .inNamespace(NAMESPACE)
                        .list()
                        .getItems())
                .extracting(budget -> budget.getMetadata().getName())
                .containsExactly(RELEASE + "-talkide-control-plane");
    }

    /**
     * The chart with these values: installed, waiting until it is ready, or upgraded without waiting (the second
     * replica may find no room on the one node; that test reads only the rendered objects). Not {@code upgrade
     * --install}: helm-java's takes the cluster from localhost:8080 instead of the kubeconfig it is given.
     */
    private static void helm(Map<String, Object> values, boolean upgrade) throws Exception {
        Path file = Files.createTempFile("talkide-e2e-values", ".yaml");
        Files.writeString(file, new Yaml().dump(values));
        try {
            Helm chart = new Helm(Path.of("helm", "talkide-control-plane"));
            if (upgrade) {
                chart.upgrade()
                        .withName(RELEASE)
                        .withNamespace(NAMESPACE)
                        .withKubeConfigContents(RealCluster.adminKubeconfig())
                        .withValuesFile(file)
                        .call();
            } else {
                chart.install()
                        .withName(RELEASE)
                        .withNamespace(NAMESPACE)
                        .withKubeConfigContents(RealCluster.adminKubeconfig())
                        .withValuesFile(file)
                        .waitReady()
                        .withTimeout(600)
                        .call();
            }
        } finally {
            Files.delete(file);
        }
    }

    private Map<String, Object> values(String databasePassword) {
        String workerImage = required("TALKIDE_REAL_CLUSTER_WORKER_IMAGE");
        String image = required("TALKIDE_E2E_CONTROL_PLANE_IMAGE");
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("replicaCount", 1);
        values.put(
                "image",
                Map.of(
                        "repository", image.substring(0, image.lastIndexOf(':')),
                        "tag", image.substring(image.lastIndexOf(':') + 1),
                        "pullPolicy", "IfNotPresent"));
        values.put(
                "resources",
                Map.of("requests", Map.of("cpu", "200m", "memory", "768Mi"), "limits", Map.of("memory", "1Gi")));
        values.put("ingress", Map.of("enabled", false));
        values.put(
                "database",
                Map.of(
                        "url",
                        "jdbc:postgresql://talkide-postgres." + NAMESPACE + ".svc.cluster.local:5432/talkide",
                        "username",
                        "postgres",
                        "password",
                        databasePassword));
        // Required by the chart; unused: local mode without a key in the application's settings uses the simulator.
        values.put("anthropic", Map.of("apiKey", "unused-the-simulator-answers"));
        values.put(
                "masterKeys",
                Map.of(
                        "keys",
                        "k1:" + Base64.getUrlEncoder().withoutPadding().encodeToString(random.generateSeed(32)),
                        "activeKid",
                        "k1"));
        values.put("oidc", Map.of("issuerUri", "https://id.invalid/e2e", "audience", "e2e"));
        values.put("provisioning", Map.of("workerImage", workerImage));
        values.put("builds", Map.of("enabled", true));
        Map<String, Object> talkide = new LinkedHashMap<>();
        talkide.put("mode", "local");
        talkide.put("gateway", Map.of("api-key", ""));
        talkide.put("gate", Map.of("required", false));
        talkide.put(
                "auth",
                Map.of(
                        "local-users",
                        List.of(Map.of(
                                "username",
                                ADMIN_USER,
                                "password-hash",
                                "{bcrypt}" + new BCryptPasswordEncoder().encode(adminPassword),
                                "roles",
                                List.of("USER", "ADMIN")))));
        talkide.put("tokens", Map.of("rotation-grace", "20s"));
        talkide.put(
                "builds",
                Map.of(
                        "image",
                        Map.of(
                                "builder-image",
                                KANIKO_IMAGE,
                                "registry-prefix",
                                REGISTRY_PREFIX,
                                "resources",
                                Map.of(
                                        "cpu-request",
                                        "50m",
                                        "memory-request",
                                        "64Mi",
                                        "cpu-limit",
                                        "1",
                                        "memory-limit",
                                        "1Gi")),
                        "gradle",
                        Map.of(
                                "builder-image",
                                RealCluster.gradleImage(),
                                "cache-storage-class",
                                STORAGE_CLASS,
                                "resources",
                                Map.of(
                                        "cpu-request",
                                        "100m",
                                        "memory-request",
                                        "256Mi",
                                        "cpu-limit",
                                        "1",
                                        "memory-limit",
                                        "1Gi"))));
        talkide.put(
                "provisioning",
                Map.of(
                        "resources",
                        Map.of("cpu-request", "100m", "memory-request", "256Mi"),
                        // The node's Localhost profile (scripts/cluster/up), so the worker's Bash sandbox can start.
                        "worker-seccomp-profile",
                        "profiles/talkide-worker.json"));
        values.put("config", Map.of("talkide", talkide));
        return values;
    }

    private void postgres(String password) {
        String image = required("TALKIDE_E2E_POSTGRES_IMAGE");
        admin.secrets()
                .inNamespace(NAMESPACE)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("talkide-postgres")
                        .endMetadata()
                        .addToStringData("password", password)
                        .build())
                .createOr(NonDeletingOperation::update);
        Map<String, String> labels = Map.of("app", "talkide-postgres");
        admin.apps()
                .deployments()
                .inNamespace(NAMESPACE)
                .resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("talkide-postgres")
                        .endMetadata()
                        .withNewSpec()
                        .withNewSelector()
                        .withMatchLabels(labels)
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .withLabels(labels)
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("postgres")
                        .withImage(image)
                        .withImagePullPolicy("IfNotPresent")
                        .addNewEnv()
                        .withName("POSTGRES_PASSWORD")
                        .withNewValueFrom()
                        .withNewSecretKeyRef("password", "talkide-postgres", false)
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("POSTGRES_DB")
                        .withValue("talkide")
                        .endEnv()
                        .addNewEnv()
                        .withName("PGDATA")
                        .withValue("/var/lib/postgresql/data/db")
                        .endEnv()
                        .addNewPort()
                        .withContainerPort(5432)
                        .endPort()
                        .withNewReadinessProbe()
                        .withNewTcpSocket()
                        .withNewPort(5432)
                        .endTcpSocket()
                        .withPeriodSeconds(2)
                        .endReadinessProbe()
                        .withNewResources()
                        .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m"))
                        .addToRequests("memory", new io.fabric8.kubernetes.api.model.Quantity("128Mi"))
                        .endResources()
                        .addNewVolumeMount()
                        .withName("data")
                        .withMountPath("/var/lib/postgresql/data")
                        .endVolumeMount()
                        .endContainer()
                        .addNewVolume()
                        .withName("data")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .endVolume()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .createOr(NonDeletingOperation::update);
        admin.services()
                .inNamespace(NAMESPACE)
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName("talkide-postgres")
                        .endMetadata()
                        .withNewSpec()
                        .withSelector(labels)
                        .addNewPort()
                        .withPort(5432)
                        .withNewTargetPort(5432)
                        .endPort()
                        .endSpec()
                        .build())
                .createOr(NonDeletingOperation::update);
        admin.apps()
                .deployments()
                .inNamespace(NAMESPACE)
                .withName("talkide-postgres")
                .waitUntilReady(3, java.util.concurrent.TimeUnit.MINUTES);
    }

    private Deployment workerDeployment() {
        return admin.apps()
                .deployments()
                .inNamespace(TENANT_NAMESPACE)
                .withName("talkide-worker")
                .get();
    }

    private String identityToken() {
        var secret = admin.secrets()
                .inNamespace(TENANT_NAMESPACE)
                .withName("talkide-worker-token")
                .get();
        return new String(Base64.getDecoder().decode(secret.getData().get("identity-token")), StandardCharsets.UTF_8);
    }

    private int mint(String identityToken) {
        return http.postJson(
                        "/api/v1/worker-gateway/token/mint",
                        "{\"conversationId\":\"" + conversation + "\"}",
                        "Authorization",
                        "Bearer " + identityToken)
                .status();
    }

    /** Sends a message; returns its id, which the events of its turn carry. */
    private String send(String text) {
        TestHttp.Response accepted = userCall(
                "POST",
                "/api/conversations/" + conversation + "/messages",
                TestHttp.JSON.writeValueAsString(Map.of(
                        "text", text, "clientMessageId", UUID.randomUUID().toString())));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        return accepted.json().path("messageId").asString();
    }

    private void awaitTurnCompleted(String messageId) {
        awaitTurnCompleted(messageId, Duration.ofMinutes(3));
    }

    /** Until the message's turn completed; its failure ends the wait at once (not an assertion: no retry). */
    private void awaitTurnCompleted(String messageId, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            List<JsonNode> events = events();
            if (turnEnded(events, "turn.failed", messageId)) {
                throw new IllegalStateException("the turn of " + messageId + " failed: " + eventData());
            }
            assertThat(turnEnded(events, "turn.completed", messageId)).isTrue();
        });
    }

    private static boolean turnEnded(List<JsonNode> events, String type, String messageId) {
        return events.stream()
                .anyMatch(e -> type.equals(e.path("type").asString())
                        && messageId.equals(e.path("data").path("messageId").asString()));
    }

    /** The answer to a message: its turn's text deltas, joined. */
    private String answer(String messageId) {
        StringBuilder text = new StringBuilder();
        events().stream()
                .filter(e -> "text.delta".equals(e.path("type").asString())
                        && messageId.equals(e.path("data").path("messageId").asString()))
                .forEach(e -> text.append(e.path("data").path("text").asString()));
        return text.toString();
    }

    private int count(String type) {
        return (int) events().stream()
                .filter(e -> type.equals(e.path("type").asString()))
                .count();
    }

    private String eventData() {
        StringBuilder all = new StringBuilder();
        events().forEach(e -> all.append(e.path("type").asString())
                .append(' ')
                .append(e.path("data"))
                .append('\n'));
        return all.toString();
    }

    private List<JsonNode> events() {
        List<JsonNode> events = new ArrayList<>();
        long after = 0;
        while (true) {
            JsonNode page = userCall(
                            "GET",
                            "/api/conversations/" + conversation + "/events?after=" + after + "&limit=1000",
                            null)
                    .json();
            page.path("events").forEach(events::add);
            if (!page.path("hasMore").asBoolean() || events.isEmpty()) {
                return events;
            }
            after = events.getLast().path("seq").asLong();
        }
    }

    private TestHttp.Response adminCall(String method, String path, String body) {
        return userCall(method, path, body);
    }

    private TestHttp.Response userCall(String method, String path, String body) {
        return http.send(http.request(path)
                .header("Authorization", TestHttp.basic(ADMIN_USER, adminPassword))
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    private static String required(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    variable + " must be set for the cluster end-to-end test (scripts/cluster/e2e)");
        }
        return value;
    }
}
