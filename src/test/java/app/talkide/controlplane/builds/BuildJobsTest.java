package app.talkide.controlplane.builds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.provisioning.AnotherReplicaLeads;
import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.provisioning.MockApiRequests;
import app.talkide.controlplane.provisioning.MockCluster;
import app.talkide.controlplane.provisioning.ProvisioningApiCalls;
import app.talkide.controlplane.provisioning.leader.LeadershipChanged;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
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
import tools.jackson.databind.JsonNode;

/**
 * Builds end to end against fabric8's CRUD mock API server, over real HTTP: the worker's API, the Jobs the
 * leader creates (specs, placement, cache volume), the per tenant-environment queue, outcomes read from
 * the Job, cancel, the log (the mock serves the pod log) and adoption by a new leader. Another replica
 * holds the provisioning Lease, so only the test's {@link LeadershipChanged} makes this one dispatch.
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
            "talkide.builds.max-running=1",
            "talkide.builds.dispatch-interval=200ms",
            "talkide.builds.log-poll-interval=100ms",
            "talkide.builds.ttl-after-finished=10m",
            "talkide.builds.active-deadline=20m",
            "talkide.builds.image-pull-grace=1s",
            "talkide.builds.placement.node-selector.pool=builds",
            "talkide.builds.placement.required-node-labels.[kubernetes.io/arch][0]=amd64",
            "talkide.builds.placement.tolerations[0].key=talkide.app/builds",
            "talkide.builds.placement.tolerations[0].value=true",
            "talkide.builds.placement.tolerations[0].effect=NoSchedule",
            "talkide.builds.gradle.cache-storage-class=nfs",
            "talkide.builds.image.builder-image=ghcr.io/osscontainertools/kaniko:test",
            "talkide.builds.image.registry-prefix=registry.example.com/{tenant}/{env}/"
        })
class BuildJobsTest {

    static final String DEV = TestHttp.basic("dev", "dev");

    static KubernetesClient client;
    static KubernetesMockServer server;

    @Autowired
    ApplicationContext context;

    @Autowired
    MeterRegistry meters;

    @LocalServerPort
    int port;

    TestHttp http;
    TenantEnvironmentId tenantEnvironment;
    Conversation conversation;
    String token;
    MockApiRequests requests;

    @BeforeEach
    void lead() {
        requests = new MockApiRequests(server);
        http = new TestHttp(port);
        tenantEnvironment = Fixtures.tenantEnvironment(context);
        conversation = Fixtures.conversation(context, tenantEnvironment, "dev");
        token = mint(conversation);
        context.publishEvent(new LeadershipChanged(true, "test"));
    }

    /**
     * Every call the application made is one the chart's RBAC grants (ChartRbacTest); then this replica stops
     * leading, which closes its informer's watch before the mock server shuts down.
     */
    @AfterEach
    void everyCallIsGrantedByTheChart() {
        context.publishEvent(new LeadershipChanged(false, "test"));
        ProvisioningApiCalls.assertListed(requests.applicationCalls(), AnotherReplicaLeads.LEASE_NAMESPACE);
        // fabric8's mock server can stall its one event loop for up to a minute when a watch closes while it
        // has an event in flight for it (WatchEventsListener.onClosed awaits its executor there): the next
        // test must not start, and wait 30 s for a Job, against a stalled server.
        await().atMost(Duration.ofSeconds(75))
                .ignoreExceptions()
                .until(() -> client.batch()
                                .v1()
                                .jobs()
                                .inNamespace(tenantEnvironment.namespace())
                                .list()
                        != null);
    }

    @Test
    void gradleBuildRunsAsALockedDownJobOnTheBuildPoolWithTheWorkingTreeAndTheGradleCache() {
        JsonNode queued = start("{\"kind\":\"gradle\",\"tasks\":[\"test\"],\"arguments\":[\"--info\"]}");
        assertThat(queued.get("kind").asString()).isEqualTo("gradle");

        Job job = awaitJob(id(queued));

        var spec = job.getSpec();
        assertThat(spec.getBackoffLimit()).isZero();
        assertThat(spec.getTtlSecondsAfterFinished()).isEqualTo(600);
        assertThat(spec.getActiveDeadlineSeconds()).isEqualTo(1200L);
        assertThat(job.getMetadata().getLabels())
                .containsEntry(BuildNames.BUILD_ID_LABEL, id(queued).toString())
                .containsEntry("talkide.app/tenant", tenantEnvironment.tenant());
        PodSpec pod = spec.getTemplate().getSpec();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getNodeSelector()).containsEntry("pool", "builds");
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("talkide.app/builds");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        assertThat(pod.getAffinity()
                        .getNodeAffinity()
                        .getRequiredDuringSchedulingIgnoredDuringExecution()
                        .getNodeSelectorTerms()
                        .getFirst()
                        .getMatchExpressions())
                .singleElement()
                .satisfies(r -> assertThat(r.getValues()).containsExactly("amd64"));
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        var container = pod.getContainers().getFirst();
        assertThat(container.getArgs()).containsExactly("--no-daemon", "test", "--info");
        assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(container.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(container.getVolumeMounts())
                .anySatisfy(m -> {
                    assertThat(m.getName()).isEqualTo("claude-sessions");
                    assertThat(m.getSubPath()).isEqualTo("workspace");
                })
                .anySatisfy(m -> assertThat(m.getName()).isEqualTo(BuildNames.GRADLE_CACHE_VOLUME));
        PersistentVolumeClaim cache = client.persistentVolumeClaims()
                .inNamespace(tenantEnvironment.namespace())
                .withName(BuildNames.GRADLE_CACHE_VOLUME)
                .get();
        assertThat(cache.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
        assertThat(cache.getSpec().getStorageClassName()).isEqualTo("nfs");
        assertThat(state(id(queued))).isEqualTo("running");
    }

    @Test
    void imageBuildPushesOnlyIntoTheTenantsRegistryWithItsCredential() {
        TestHttp.Response elsewhere =
                post("{\"kind\":\"image\",\"dockerfile\":\"Dockerfile\",\"destination\":\"docker.io/evil/app:1\"}");
        assertThat(elsewhere.status()).isEqualTo(400);
        assertThat(elsewhere.json().get("type").asString()).endsWith("/invalid-build-request");
        BuildApiSchemas.assertConforms(elsewhere.body(), "Problem");
        TestHttp.Response escaping = post("{\"kind\":\"image\",\"dockerfile\":\"../../etc/Dockerfile\","
                + "\"destination\":\"registry.example.com/" + tenantEnvironment.tenant() + "/" + tenantEnvironment.env()
                + "/app:1\"}");
        assertThat(escaping.status()).isEqualTo(400);

        JsonNode queued = start("{\"kind\":\"image\",\"dockerfile\":\"docker/Dockerfile\",\"context\":\"app\","
                + "\"destination\":\"registry.example.com/" + tenantEnvironment.tenant() + "/" + tenantEnvironment.env()
                + "/app:1\"}");
        Job job = awaitJob(id(queued));

        var pod = job.getSpec().getTemplate().getSpec();
        var container = pod.getContainers().getFirst();
        assertThat(container.getImage()).isEqualTo("ghcr.io/osscontainertools/kaniko:test");
        assertThat(container.getArgs())
                .containsExactly(
                        "--context=dir:///workspace/app",
                        "--dockerfile=/workspace/docker/Dockerfile",
                        "--destination=registry.example.com/" + tenantEnvironment.tenant() + "/"
                                + tenantEnvironment.env() + "/app:1");
        assertThat(container.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getName()).isEqualTo("claude-sessions");
            assertThat(m.getReadOnly()).isTrue();
        });
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getSecret() != null)
                .singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("talkide-registry-credentials"));
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void anImageBuildPrintingItsPushCredentialLeavesOnlyARedactionInTheLogItServes() {
        String password = "push-token-" + UUID.randomUUID();
        String userAndPassword = "robot$" + tenantEnvironment.tenant() + ":" + password;
        String auth = base64(userAndPassword);
        String config =
                "{\"auths\":{\"registry.example.com\":{\"auth\":\"" + auth + "\",\"password\":\"" + password + "\"}}}";
        client.secrets()
                .inNamespace(tenantEnvironment.namespace())
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("talkide-registry-credentials")
                        .endMetadata()
                        .withType("kubernetes.io/dockerconfigjson")
                        .addToData(".dockerconfigjson", base64(config))
                        .build())
                .create();
        UUID build = id(
                start("{\"kind\":\"image\",\"dockerfile\":\"Dockerfile\",\"destination\":" + "\"registry.example.com/"
                        + tenantEnvironment.tenant() + "/" + tenantEnvironment.env() + "/app:1\"}"));
        awaitJob(build);
        String logPath = "/api/v1/namespaces/" + tenantEnvironment.namespace() + "/pods/" + pod(build, 0)
                + "/log?container=build&timestamps=true&limitBytes=8388608";
        // A Dockerfile step that prints the mounted config.json, its password, and the decoded auth.
        String printed = "2026-01-01T10:00:01.100000000Z INFO RUN cat /kaniko/.docker/config.json\n"
                + "2026-01-01T10:00:01.200000000Z " + config + "\n"
                + "2026-01-01T10:00:01.300000000Z token=" + password + "\n"
                + "2026-01-01T10:00:01.400000000Z " + userAndPassword + "\n";
        server.expect().get().withPath(logPath).andReturn(200, printed).once();
        server.expect()
                .get()
                .withPath(logPath + "&sinceTime=2026-01-01T10:00:01Z")
                .andReturn(200, printed)
                .always();

        try (SseClient live = SseClient.connect(url(build) + "/logs", "X-Worker-Token", token)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> lines(live).size() == 4);
            String mark = "[redacted: registry credential]";
            assertThat(lines(live))
                    .containsExactly(
                            "INFO RUN cat /kaniko/.docker/config.json",
                            "{\"auths\":{\"registry.example.com\":{\"auth\":\"" + mark + "\",\"password\":\"" + mark
                                    + "\"}}}",
                            "token=" + mark,
                            mark);
        }
        complete(build, true); // leaves no build running behind it
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void beyondTheRunningLimitBuildsWaitInOrderAndStartAsSlotsFree() {
        UUID first = id(start(gradle("first")));
        UUID second = id(start(gradle("second")));
        UUID third = id(start(gradle("third")));
        awaitJob(first);
        assertThat(get(second).get("state").asString()).isEqualTo("queued");
        assertThat(get(second).get("queuePosition").asInt()).isEqualTo(1);
        assertThat(get(third).get("queuePosition").asInt()).isEqualTo(2);
        assertThat(job(second)).isNull();

        complete(first, true);

        await().atMost(Duration.ofSeconds(10)).until(() -> state(first).equals("succeeded"));
        awaitJob(second);
        assertThat(state(second)).isEqualTo("running");
        assertThat(get(third).get("queuePosition").asInt()).isEqualTo(1);
        assertThat(job(third)).isNull();
        assertThat(meters.find("talkide.builds.finished")
                        .tag("outcome", "succeeded")
                        .counter())
                .isNotNull();
        assertThat(meters.find("talkide.builds.queue.time").timer()).isNotNull();
    }

    @Test
    void aFailedJobFailsTheBuildWithTheExitCode() {
        UUID build = id(start(gradle("test")));
        awaitJob(build);
        pod(build, 2);

        complete(build, false);

        await().atMost(Duration.ofSeconds(10)).until(() -> state(build).equals("failed"));
        assertThat(get(build).get("reason").asString()).isEqualTo("the build failed with exit code 2");
        assertThat(get(build).get("durationMs").isNumber()).isTrue();
    }

    @Test
    void aBuildWhosePodCannotPullItsImageFailsWithTheReasonInsteadOfWaitingForItsDeadline() {
        UUID build = id(start(gradle("test")));
        awaitJob(build);
        String pod = pod(build, 0);
        pullingFails(pod, "ErrImagePull");
        pullingFails(pod, "ImagePullBackOff");

        // After image-pull-grace (1 s here), not after active-deadline (20 min).
        await().atMost(Duration.ofSeconds(30)).until(() -> state(build).equals("failed"));
        assertThat(get(build).get("reason").asString())
                .isEqualTo("the build's image registry.example.com/missing:1 could not be pulled (ImagePullBackOff)");
        // Its pod would go on trying: the Job goes, and with it the pod.
        await().atMost(Duration.ofSeconds(10)).until(() -> job(build) == null);
    }

    @Test
    void cancellingARunningBuildDeletesItsJobAndAQueuedOneNeverStarts() {
        UUID running = id(start(gradle("first")));
        UUID queued = id(start(gradle("second")));
        awaitJob(running);

        TestHttp.Response cancelledQueued = http.delete(path(queued), "X-Worker-Token", token);
        assertThat(cancelledQueued.json().get("state").asString()).isEqualTo("cancelled");
        TestHttp.Response cancelled = http.delete(path(running), "X-Worker-Token", token);
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().get("state").asString()).isEqualTo("cancelled");
        BuildApiSchemas.assertConforms(cancelled.body(), "Build");

        await().atMost(Duration.ofSeconds(10)).until(() -> job(running) == null);
        assertThat(job(queued)).isNull();
        // Cancelling again changes nothing.
        assertThat(http.delete(path(running), "X-Worker-Token", token)
                        .json()
                        .get("state")
                        .asString())
                .isEqualTo("cancelled");
    }

    @Test
    void theLogStreamsLiveWhileTheBuildRunsAndIsReplayedAfterwards() {
        UUID build = id(start(gradle("test")));
        awaitJob(build);
        String pod = pod(build, 0);
        String logPath = "/api/v1/namespaces/" + tenantEnvironment.namespace() + "/pods/" + pod
                + "/log?container=build&timestamps=true&limitBytes=8388608";
        // The first read takes the log whole; the next ones only what came since the last line's second.
        server.expect()
                .get()
                .withPath(logPath)
                .andReturn(200, "2026-01-01T10:00:01.100000000Z > Task :test\n")
                .once();
        server.expect()
                .get()
                .withPath(logPath + "&sinceTime=2026-01-01T10:00:01Z")
                .andReturn(
                        200,
                        "2026-01-01T10:00:01.100000000Z > Task :test\n"
                                + "2026-01-01T10:00:02.500000000Z BUILD SUCCESSFUL\n")
                .once();
        server.expect()
                .get()
                .withPath(logPath + "&sinceTime=2026-01-01T10:00:02Z")
                .andReturn(200, "2026-01-01T10:00:02.500000000Z BUILD SUCCESSFUL\n")
                .always();

        try (SseClient live = SseClient.connect(url(build) + "/logs", "X-Worker-Token", token)) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> lines(live).equals(List.of("> Task :test", "BUILD SUCCESSFUL")));
            assertThat(live.ended()).isFalse();
            complete(build, true);
            await().atMost(Duration.ofSeconds(10)).until(live::ended);
            assertThat(live.events().getLast().type()).isEqualTo("end");
            assertThat(live.events().getLast().data()).contains("\"state\":\"succeeded\"");
            BuildApiSchemas.assertConforms(live.events().getLast().data(), "LogEnd");
        }
        try (SseClient replay =
                SseClient.connect(url(build) + "/logs", "X-Worker-Token", token, "Last-Event-ID", "1")) {
            await().atMost(Duration.ofSeconds(10)).until(replay::ended);
            assertThat(lines(replay)).containsExactly("BUILD SUCCESSFUL");
        }
    }

    @Test
    void deletingTheTenantEnvironmentCancelsItsBuildsAndRemovesTheirJobs() {
        UUID running = id(start(gradle("first")));
        UUID queued = id(start(gradle("second")));
        awaitJob(running);

        // What DesiredStates.delete does where a cluster is managed: mark it DELETING, then announce it.
        context.getBean(TenantEnvironments.class)
                .changeStatus(tenantEnvironment, TenantEnvironmentStatus.DELETING, "deletion requested");
        context.publishEvent(new DesiredStateChanged(tenantEnvironment));

        assertThat(builds().find(running).orElseThrow().state()).isEqualTo(BuildState.CANCELLED);
        assertThat(builds().find(queued).orElseThrow().state()).isEqualTo(BuildState.CANCELLED);
        assertThat(builds().find(running).orElseThrow().reason()).contains("tenant-environment is being deleted");
        await().atMost(Duration.ofSeconds(10)).until(() -> job(running) == null);
        assertThat(job(queued)).isNull();
    }

    private Builds builds() {
        return context.getBean(Builds.class);
    }

    @Test
    void aNewLeaderAdoptsRunningJobsByLabel() {
        UUID finishesMeanwhile = id(start(gradle("test")));
        awaitJob(finishesMeanwhile);
        context.publishEvent(new LeadershipChanged(false, "test"));
        // Finished while nobody led: only the next leader's informer can see it.
        complete(finishesMeanwhile, true);
        assertThat(state(finishesMeanwhile)).isEqualTo("running");

        context.publishEvent(new LeadershipChanged(true, "test"));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> state(finishesMeanwhile).equals("succeeded"));
    }

    @Test
    void aBuildBelongsToItsConversation() {
        UUID build = id(start(gradle("test")));
        Conversation other = Fixtures.conversation(context, tenantEnvironment, "dev");
        String otherToken = mint(other);

        assertThat(http.get(path(build), "X-Worker-Token", otherToken).status()).isEqualTo(404);
        assertThat(http.delete(path(build), "X-Worker-Token", otherToken).status())
                .isEqualTo(404);
        assertThat(http.get(path(build)).status()).isEqualTo(401);
        TestHttp.Response bad = post("{\"kind\":\"gradle\",\"tasks\":[\"test; rm -rf /\"]}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("type").asString()).endsWith("/invalid-build-request");
        assertThat(post("{\"kind\":\"maven\"}").status()).isEqualTo(400);
    }

    @Test
    void theConversationsOwnerFollowsItsBuildsInTheConsoleAndNobodyElse() {
        UUID build = id(start(gradle("test")));
        awaitJob(build);
        String logPath = "/api/v1/namespaces/" + tenantEnvironment.namespace() + "/pods/" + pod(build, 0)
                + "/log?container=build&timestamps=true&limitBytes=8388608";
        String line = "2026-01-01T10:00:01.100000000Z > Task :test\n";
        server.expect().get().withPath(logPath).andReturn(200, line).always();
        server.expect()
                .get()
                .withPath(logPath + "&sinceTime=2026-01-01T10:00:01Z")
                .andReturn(200, line)
                .always();
        String mine = "/api/conversations/" + conversation.id() + "/builds";

        TestHttp.Response list = http.get(mine, "Authorization", DEV);
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        assertThat(list.json().get(0).get("id").asString()).isEqualTo(build.toString());
        try (SseClient live =
                SseClient.connect("http://127.0.0.1:" + port + mine + "/" + build + "/logs", "Authorization", DEV)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> lines(live).equals(List.of("> Task :test")));
            complete(build, true);
            await().atMost(Duration.ofSeconds(10)).until(live::ended);
            assertThat(live.events().getLast().data()).contains("\"state\":\"succeeded\"");
        }

        // Someone else's conversation, a build of another conversation, no session: all 404 / 401, alike.
        Conversation notMine = Fixtures.conversation(context, tenantEnvironment, "someone-else");
        String theirs = "/api/conversations/" + notMine.id() + "/builds";
        assertThat(http.get(theirs, "Authorization", DEV).status()).isEqualTo(404);
        assertThat(http.get(theirs + "/" + build + "/logs", "Authorization", DEV)
                        .status())
                .isEqualTo(404);
        Conversation mineToo = Fixtures.conversation(context, tenantEnvironment, "dev");
        TestHttp.Response elsewhere =
                http.get("/api/conversations/" + mineToo.id() + "/builds/" + build + "/logs", "Authorization", DEV);
        assertThat(elsewhere.status()).isEqualTo(404);
        assertThat(elsewhere.json().get("type").asString()).endsWith("/build-not-found");
        assertThat(http.get(mine).status()).isEqualTo(401);
        // Removed from the tenant-environment while following a running build: the stream stops at the
        // next access check, and the conversation is no longer the user's to read.
        UUID next = id(start(gradle("again")));
        awaitJob(next);
        try (SseClient live =
                SseClient.connect("http://127.0.0.1:" + port + mine + "/" + next + "/logs", "Authorization", DEV)) {
            context.getBean(Memberships.class).revoke(tenantEnvironment, "dev");
            await().atMost(Duration.ofSeconds(15)).until(live::ended);
            assertThat(live.events())
                    .noneSatisfy(event -> assertThat(event.type()).isEqualTo("end"));
        }
        complete(next, true); // leaves no build running behind it
        assertThat(http.get(mine + "/" + build + "/logs", "Authorization", DEV).status())
                .isEqualTo(404);
    }

    private static String gradle(String task) {
        return "{\"kind\":\"gradle\",\"tasks\":[\"" + task + "\"]}";
    }

    private JsonNode start(String body) {
        TestHttp.Response response = post(body);
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        BuildApiSchemas.assertConforms(response.body(), "Build");
        return response.json();
    }

    private TestHttp.Response post(String body) {
        return http.postJson("/api/internal/worker/builds", body, "X-Worker-Token", token);
    }

    private JsonNode get(UUID build) {
        TestHttp.Response response = http.get(path(build), "X-Worker-Token", token);
        BuildApiSchemas.assertConforms(response.body(), response.status() == 200 ? "Build" : "Problem");
        return response.json();
    }

    private String state(UUID build) {
        return get(build).get("state").asString();
    }

    private static UUID id(JsonNode build) {
        return UUID.fromString(build.get("id").asString());
    }

    private static String path(UUID build) {
        return "/api/internal/worker/builds/" + build;
    }

    private String url(UUID build) {
        return "http://127.0.0.1:" + port + path(build);
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
        await().atMost(Duration.ofSeconds(30)).until(() -> job(build) != null);
        return job(build);
    }

    /** What the Job controller would write when the build's pod ended. */
    private void complete(UUID build, boolean succeeded) {
        var status = new JobStatusBuilder()
                .withConditions(new JobConditionBuilder()
                        .withType(succeeded ? "Complete" : "Failed")
                        .withStatus("True")
                        .withReason(succeeded ? null : "BackoffLimitExceeded")
                        .build());
        if (succeeded) {
            status.withSucceeded(1);
        } else {
            status.withFailed(1);
        }
        Job job = job(build);
        job.setStatus(status.build());
        client.batch()
                .v1()
                .jobs()
                .inNamespace(tenantEnvironment.namespace())
                .resource(job)
                .updateStatus();
    }

    /** The pod the Job controller would create, running, or ended with the exit code (0: still running). */
    private String pod(UUID build, int exitCode) {
        String name = BuildNames.jobName(build) + "-abcde";
        var pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(tenantEnvironment.namespace())
                .withLabels(BuildNames.labels(tenantEnvironment, build))
                .addToLabels(BuildNames.JOB_NAME_LABEL, BuildNames.jobName(build))
                .endMetadata()
                .withNewStatus()
                .withPhase(exitCode == 0 ? "Running" : "Failed")
                .addNewContainerStatus()
                .withName("build")
                .withNewState()
                .withNewTerminated()
                .withExitCode(exitCode)
                .endTerminated()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
        if (exitCode == 0) {
            pod.getStatus().getContainerStatuses().getFirst().getState().setTerminated(null);
        }
        client.pods().inNamespace(tenantEnvironment.namespace()).resource(pod).create();
        return name;
    }

    /** What the kubelet writes while it cannot pull the build container's image. */
    private void pullingFails(String pod, String reason) {
        var pods = client.pods().inNamespace(tenantEnvironment.namespace()).withName(pod);
        var status = pods.get().getStatus();
        status.setPhase("Pending");
        var container = status.getContainerStatuses().getFirst();
        container.setImage("registry.example.com/missing:1");
        container.setState(new ContainerStateBuilder()
                .withNewWaiting()
                .withReason(reason)
                .withMessage("Back-off pulling image \"registry.example.com/missing:1\"")
                .endWaiting()
                .build());
        pods.editStatus(p -> {
            p.setStatus(status);
            return p;
        });
    }

    private static List<String> lines(SseClient stream) {
        return stream.events().stream()
                .filter(e -> "line".equals(e.type()))
                .map(SseClient.Event::data)
                .toList();
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
