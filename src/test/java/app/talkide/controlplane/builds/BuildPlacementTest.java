package app.talkide.controlplane.builds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.provisioning.AnotherReplicaLeads;
import app.talkide.controlplane.provisioning.MockApiRequests;
import app.talkide.controlplane.provisioning.MockCluster;
import app.talkide.controlplane.provisioning.ProvisioningApiCalls;
import app.talkide.controlplane.provisioning.leader.LeadershipChanged;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A tenant-environment's build placement, set through the admin desired-state API, lands in its build Jobs
 * (fabric8 CRUD mock API server, real HTTP): field by field over the chart's defaults, read for each new Job
 * so a change reaches the next build and leaves a running one alone.
 */
@DatabaseTest
// Stays: a configuration (and mock cluster) no other class has; closing it stops its informers and frees its pool.
@DirtiesContext
@MockCluster
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.leader.lease-namespace=" + AnotherReplicaLeads.LEASE_NAMESPACE,
            "talkide.builds.enabled=true",
            "talkide.builds.max-running=2",
            "talkide.builds.dispatch-interval=200ms",
            "talkide.builds.placement.node-selector.pool=builds",
            "talkide.builds.placement.required-node-labels.[kubernetes.io/arch][0]=amd64",
            "talkide.builds.placement.tolerations[0].key=talkide.app/builds",
            "talkide.builds.placement.tolerations[0].value=true",
            "talkide.builds.placement.tolerations[0].effect=NoSchedule"
        })
class BuildPlacementTest {

    static final String ADMIN = TestHttp.basic("dev", "dev");

    static KubernetesClient client;
    static KubernetesMockServer server;

    @Autowired
    ApplicationContext context;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId tenantEnvironment;
    String token;
    MockApiRequests requests;

    @BeforeEach
    void lead() {
        requests = new MockApiRequests(server);
        http = new TestHttp(port);
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        token = mint(Fixtures.conversation(context, tenantEnvironment, "dev"));
        context.publishEvent(new LeadershipChanged(true, "test"));
    }

    @AfterEach
    void everyCallIsGrantedByTheChart() {
        context.publishEvent(new LeadershipChanged(false, "test"));
        ProvisioningApiCalls.assertListed(requests.applicationCalls(), AnotherReplicaLeads.LEASE_NAMESPACE);
    }

    @Test
    void withoutOwnPlacementBuildsRunWhereTheChartSays() {
        PodSpec pod = awaitJob(startGradle()).getSpec().getTemplate().getSpec();

        assertThat(pod.getNodeSelector()).containsExactlyEntriesOf(Map.of("pool", "builds"));
        assertThat(pod.getTolerations()).extracting(Toleration::getKey).containsExactly("talkide.app/builds");
        assertThat(requiredNodeLabels(pod)).singleElement().satisfies(r -> {
            assertThat(r.getKey()).isEqualTo("kubernetes.io/arch");
            assertThat(r.getValues()).containsExactly("amd64");
        });
    }

    @Test
    void aTenantEnvironmentsPlacementReplacesTheDefaultsFieldByField() {
        TestHttp.Response set = putDesiredState("""
                {"buildPlacement":{"nodeSelector":{"pool":"acme-builds"},
                  "tolerations":[{"key":"tenant","operator":"Equal","value":"acme","effect":"NoSchedule"}]}}
                """);
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        assertThat(set.json()
                        .path("desiredState")
                        .path("buildPlacement")
                        .path("nodeSelector")
                        .path("pool")
                        .asString())
                .isEqualTo("acme-builds");

        PodSpec pod = awaitJob(startGradle()).getSpec().getTemplate().getSpec();

        assertThat(pod.getNodeSelector()).containsExactlyEntriesOf(Map.of("pool", "acme-builds"));
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("tenant");
            assertThat(t.getValue()).isEqualTo("acme");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        // Not set here: the chart's node affinity still applies.
        assertThat(requiredNodeLabels(pod))
                .singleElement()
                .satisfies(r -> assertThat(r.getValues()).containsExactly("amd64"));
    }

    @Test
    void anEmptyListOrMapMeansNoneNotTheDefault() {
        assertThat(putDesiredState("{\"buildPlacement\":{\"requiredNodeLabels\":{},\"tolerations\":[]}}")
                        .status())
                .isEqualTo(200);

        PodSpec pod = awaitJob(startGradle()).getSpec().getTemplate().getSpec();

        assertThat(pod.getAffinity()).isNull();
        assertThat(pod.getTolerations()).isEmpty();
        assertThat(pod.getNodeSelector()).containsEntry("pool", "builds");
    }

    @Test
    void aChangedPlacementReachesTheNextBuildAndLeavesARunningOneAlone() {
        putDesiredState("{\"buildPlacement\":{\"nodeSelector\":{\"pool\":\"old\"}}}");
        UUID running = startGradle();
        awaitJob(running);

        putDesiredState("{\"buildPlacement\":{\"nodeSelector\":{\"pool\":\"new\"},"
                + "\"requiredNodeLabels\":{\"topology.kubernetes.io/zone\":[\"eu-1a\",\"eu-1b\"]}}}");
        UUID next = startGradle();

        PodSpec nextPod = awaitJob(next).getSpec().getTemplate().getSpec();
        assertThat(nextPod.getNodeSelector()).containsExactlyEntriesOf(Map.of("pool", "new"));
        assertThat(requiredNodeLabels(nextPod)).singleElement().satisfies(r -> {
            assertThat(r.getKey()).isEqualTo("topology.kubernetes.io/zone");
            assertThat(r.getValues()).containsExactly("eu-1a", "eu-1b");
        });
        assertThat(job(running).getSpec().getTemplate().getSpec().getNodeSelector())
                .containsExactlyEntriesOf(Map.of("pool", "old"));
    }

    @Test
    void badPlacementIsRefusedWithAProblemAndChangesNothing() {
        putDesiredState("{\"buildPlacement\":{\"nodeSelector\":{\"pool\":\"kept\"}}}");

        TestHttp.Response refused =
                putDesiredState("{\"buildPlacement\":{\"tolerations\":[{\"key\":\"a\",\"effect\":\"Sometimes\"}]}}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().path("type").asString())
                .isEqualTo("https://talkide.app/problems/invalid-desired-state");
        assertThat(refused.json().path("field").asString()).isEqualTo("buildPlacement.tolerations[0].effect");
        PodSpec pod = awaitJob(startGradle()).getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsExactlyEntriesOf(Map.of("pool", "kept"));
    }

    private TestHttp.Response putDesiredState(String body) {
        String path = "/api/admin/tenant-environments/" + tenantEnvironment.tenant() + "/" + tenantEnvironment.env();
        return http.send(http.request(path)
                .header("Authorization", ADMIN)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    private UUID startGradle() {
        TestHttp.Response response = http.postJson(
                "/api/internal/worker/builds", "{\"kind\":\"gradle\",\"tasks\":[\"test\"]}", "X-Worker-Token", token);
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        return UUID.fromString(response.json().get("id").asString());
    }

    private static List<NodeSelectorRequirement> requiredNodeLabels(PodSpec pod) {
        return pod.getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
                .getFirst()
                .getMatchExpressions();
    }

    private @Nullable Job job(UUID build) {
        return client.batch()
                .v1()
                .jobs()
                .inNamespace(tenantEnvironment.namespace())
                .withName(BuildNames.jobName(build))
                .get();
    }

    private Job awaitJob(UUID build) {
        await().atMost(Duration.ofSeconds(10)).until(() -> job(build) != null);
        return job(build);
    }

    private String mint(Conversation of) {
        String identity =
                Fixtures.identityToken(context, of.tenantEnvironment()).token();
        return http.postJson(
                        "/api/v1/worker-gateway/token/mint",
                        "{\"conversationId\":\"" + of.id() + "\"}",
                        "Authorization",
                        "Bearer " + identity)
                .json()
                .get("token")
                .asString();
    }
}
