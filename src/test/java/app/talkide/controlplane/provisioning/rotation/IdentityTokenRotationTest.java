package app.talkide.controlplane.provisioning.rotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.RecordingReconciler;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.support.ClockTestConfiguration;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.token.identity.IssuedIdentityToken;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;

/**
 * Rotation end to end against the (mock) API server: the new token in the Secret next to the unchanged
 * command key, the Deployment rolled, both tokens minting through the grace period, the old one refused
 * after it; on demand through the admin API (also with both pods minting continuously over HTTP while it
 * runs), automatically at 80 % of the lifetime, and finished after an interruption.
 */
@DatabaseTest
@EnableKubernetesMockClient(crud = true)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.worker.runtime=kubernetes",
            "talkide.provisioning.leader.lease-duration=3s",
            "talkide.provisioning.leader.renew-deadline=2s",
            "talkide.provisioning.leader.retry-period=200ms",
            "talkide.provisioning.schedule.resync-interval=1h",
            "talkide.provisioning.rotation.check-interval=1h",
            // Verification re-reads the table at once, so a test sees revocations without waiting.
            "talkide.tokens.identity-cache-ttl=0s",
            // The mint rate limit is not under test: with the test clock standing still between steps, its
            // bucket would never refill while pods mint continuously.
            "talkide.tokens.mint.burst=1000000"
        })
@Import(ClockTestConfiguration.class)
class IdentityTokenRotationTest {

    static final String MINT = "/api/v1/worker-gateway/token/mint";
    static final String COMMAND_KEY =
            Base64.getEncoder().encodeToString("k1:command-key".getBytes(StandardCharsets.UTF_8));

    static KubernetesClient client;

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    IdentityTokens identityTokens;

    @Autowired
    RotationSweep sweep;

    @Autowired
    LeaderElection leaderElection;

    @Autowired
    TokenProperties tokenProperties;

    @Autowired
    MutableClock clock;

    TestHttp http;
    TenantEnvironmentId acme;
    IssuedIdentityToken original;
    Conversation conversation;

    @BeforeEach
    void provisionedWorker() {
        http = new TestHttp(port);
        acme = Fixtures.tenantEnvironment(context);
        conversation = Fixtures.conversation(context, acme, "mirek");
        original = identityTokens.issue(acme);
        client.secrets().resource(secret(acme, original.token())).create();
        client.apps().deployments().resource(deployment(acme)).create();
        await().atMost(Duration.ofSeconds(10)).until(leaderElection::isLeader);
    }

    @Test
    void onDemandRotationUpdatesTheSecretRollsTheWorkerAndRetiresTheOldTokenAfterTheGrace() {
        Instant rotatedAt = clock.instant();

        TestHttp.Response response = rotateOnDemand(acme);

        assertThat(response.status()).isEqualTo(200);
        String fresh = secretToken(acme);
        assertThat(fresh).isNotEqualTo(original.token()).startsWith("tkwi_");
        assertThat(response.json().path("token").path("id").asString())
                .isEqualTo(identityTokens.verify(fresh).orElseThrow().tokenId().toString());
        assertThat(secret(acme).getData()).containsEntry(WorkerSecretKeys.COMMAND_KEY, COMMAND_KEY);
        assertThat(rolledAt(acme)).isEqualTo(rotatedAt.toString());

        // Old pod and new pod both mint through the grace period...
        clock.advance(tokenProperties.rotationGrace().minusSeconds(1));
        assertThat(mint(original.token())).isEqualTo(200);
        assertThat(mint(fresh)).isEqualTo(200);

        // ...and after it only the new one.
        clock.advance(Duration.ofSeconds(2));
        assertThat(mint(original.token())).isEqualTo(401);
        assertThat(mint(fresh)).isEqualTo(200);
    }

    @Test
    void whilePodsMintContinuouslyThroughARotationNoMintFailsUntilTheGraceEnds() throws Exception {
        // The old pod holds the original token; the new pod starts once the Secret holds another one and
        // keeps what it read, as a pod reads the Secret only at start.
        Minter oldPod = new Minter("old pod", original::token);
        Minter newPod = new Minter("new pod", () -> {
            String inSecret = secretToken(acme);
            return inSecret.equals(original.token()) ? null : inSecret;
        });
        ExecutorService pods = Executors.newFixedThreadPool(2);
        try {
            pods.submit(oldPod);
            pods.submit(newPod);
            await().atMost(Duration.ofSeconds(30)).until(() -> oldPod.minted.get() >= 5);

            Instant rotatedAt = clock.instant();
            TestHttp.Response rotation = rotateOnDemand(acme);
            assertThat(rotation.status()).isEqualTo(200);
            Instant graceEndsAt =
                    Instant.parse(rotation.json().path("graceEndsAt").asString());
            assertThat(graceEndsAt).isEqualTo(rotatedAt.plus(tokenProperties.rotationGrace()));
            assertThat(rolledAt(acme)).isEqualTo(rotatedAt.toString());
            mintAgain(oldPod, newPod);

            // Through the grace period a minute at a time, both pods minting at every step, up to its last second.
            Duration step = Duration.ofMinutes(1);
            while (clock.instant().plus(step).isBefore(graceEndsAt.minusSeconds(1))) {
                clock.advance(step);
                mintAgain(oldPod, newPod);
            }
            clock.set(graceEndsAt.minusSeconds(1));
            mintAgain(oldPod, newPod);
        } finally {
            oldPod.running = false;
            newPod.running = false;
            pods.shutdown();
            assertThat(pods.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(oldPod.failures).isEmpty();
        assertThat(newPod.failures).isEmpty();
        assertThat(oldPod.token).isEqualTo(original.token());
        assertThat(newPod.token).isEqualTo(secretToken(acme)).isNotEqualTo(original.token());
        // After the grace the old pod (had it not been replaced) is refused; the new one is not.
        clock.advance(Duration.ofSeconds(2));
        assertThat(mint(original.token())).isEqualTo(401);
        assertThat(mint(newPod.token)).isEqualTo(200);
    }

    /** Waits until each pod has minted a few more times at the clock's current time. */
    private static void mintAgain(Minter... pods) {
        int[] before = Stream.of(pods).mapToInt(pod -> pod.minted.get()).toArray();
        await().atMost(Duration.ofSeconds(30))
                .failFast("a mint failed", () -> {
                    for (Minter pod : pods) {
                        assertThat(pod.failures)
                                .as(pod.name + "'s failed mints")
                                .isEmpty();
                    }
                })
                .untilAsserted(() -> {
                    for (int i = 0; i < pods.length; i++) {
                        assertThat(pods[i].minted.get()).isGreaterThanOrEqualTo(before[i] + 3);
                    }
                });
    }

    /** A worker pod minting over HTTP in a loop with the token it started with, until stopped. */
    final class Minter implements Runnable {

        final String name;
        private final Supplier<@Nullable String> startToken;
        final AtomicInteger minted = new AtomicInteger();
        final List<String> failures = new CopyOnWriteArrayList<>();
        volatile @Nullable String token;
        volatile boolean running = true;

        Minter(String name, Supplier<@Nullable String> startToken) {
            this.name = name;
            this.startToken = startToken;
        }

        @Override
        public void run() {
            while (running) {
                try {
                    if (token == null) {
                        token = startToken.get(); // not started yet: no token for it in the Secret
                        continue;
                    }
                    int status = mint(token);
                    if (status == 200) {
                        minted.incrementAndGet();
                    } else {
                        failures.add("HTTP " + status + " at " + clock.instant());
                    }
                } catch (RuntimeException e) {
                    failures.add(e + " at " + clock.instant());
                }
            }
        }
    }

    @Test
    void tokenIsRotatedAutomaticallyOnceItHasUsedEightyPercentOfItsLifetime() {
        Duration lifetime = tokenProperties.identityTokenLifetime();
        clock.advance(lifetime.multipliedBy(79).dividedBy(100));
        sweep.sweep();
        assertThat(secretToken(acme)).isEqualTo(original.token());

        clock.advance(lifetime.multipliedBy(2).dividedBy(100));
        sweep.sweep();

        String fresh = secretToken(acme);
        assertThat(fresh).isNotEqualTo(original.token());
        assertThat(identityTokens.verify(fresh)).isPresent();
        assertThat(identityTokens.verify(original.token())).isPresent();
        assertThat(rolledAt(acme)).isEqualTo(clock.instant().toString());
        clock.advance(tokenProperties.rotationGrace().plusSeconds(1));
        assertThat(identityTokens.verify(original.token())).isEmpty();
    }

    @Test
    void rotationInterruptedAfterTheSecretWasWrittenIsFinishedByTheNextSweep() {
        // As if the control plane died right after putting the new token into the Secret.
        clock.advance(Duration.ofMinutes(1));
        IssuedIdentityToken next = identityTokens.issue(acme);
        client.secrets().resource(secret(acme, next.token())).update();
        assertThat(rolledAt(acme)).isNull();

        sweep.sweep();

        assertThat(Instant.parse(rolledAt(acme)))
                .isAfterOrEqualTo(next.expiresAt().minus(tokenProperties.identityTokenLifetime()));
        assertThat(identityTokens.verify(original.token())).isPresent();
        clock.advance(tokenProperties.rotationGrace().plusSeconds(1));
        assertThat(identityTokens.verify(original.token())).isEmpty();
        assertThat(identityTokens.verify(next.token())).isPresent();
        assertThat(secretToken(acme)).isEqualTo(next.token());
    }

    @Test
    void aSecretThatChangedUnderTheRotationIsLeftAloneAndTheUnusedTokenRevoked() {
        WorkerTokenCluster cluster = new WorkerTokenCluster(client);
        String staleVersion = cluster.read(acme).orElseThrow().resourceVersion();
        IssuedIdentityToken other = identityTokens.issue(acme);
        client.secrets().resource(secret(acme, other.token())).update();

        assertThat(cluster.replace(acme, "tkwi_" + "C".repeat(43), staleVersion))
                .isFalse();
        assertThat(secretToken(acme)).isEqualTo(other.token());
    }

    @Test
    void rotationOfAWorkerWithoutSecretIsAConflictAndIssuesNothing() {
        TenantEnvironmentId bare = Fixtures.tenantEnvironment(context);

        TestHttp.Response response = rotateOnDemand(bare);

        assertThat(response.status()).isEqualTo(409);
        assertThat(response.json().path("type").asString()).endsWith("/worker-not-provisioned");
        assertThat(identityTokens.list(bare)).isEmpty();
    }

    @Test
    void aTenantEnvironmentBeingDeletedGetsNoNewTokenEitherWay() {
        TenantEnvironmentId leaving = Fixtures.tenantEnvironment(context);
        context.getBean(TenantEnvironments.class)
                .changeStatus(leaving, TenantEnvironmentStatus.DELETING, "deletion requested");

        TestHttp.Response rotated = rotateOnDemand(leaving);
        TestHttp.Response issued = http.postJson(
                "/api/admin/tenant-environments/" + leaving.tenant() + "/" + leaving.env() + "/identity-tokens",
                "",
                "Authorization",
                TestHttp.basic("dev", "dev"));

        for (TestHttp.Response response : List.of(rotated, issued)) {
            assertThat(response.status()).isEqualTo(409);
            assertThat(response.json().path("type").asString()).endsWith("/tenant-environment-being-deleted");
        }
        assertThat(identityTokens.list(leaving)).isEmpty();
    }

    /** The admin API's on-demand rotation of a tenant-environment's identity token. */
    private TestHttp.Response rotateOnDemand(TenantEnvironmentId id) {
        return http.postJson(
                "/api/admin/tenant-environments/" + id.tenant() + "/" + id.env() + "/identity-tokens/rotate",
                "",
                "Authorization",
                TestHttp.basic("dev", "dev"));
    }

    private int mint(String identityToken) {
        return http.postJson(
                        MINT,
                        "{\"conversationId\":\"" + conversation.id() + "\"}",
                        "Authorization",
                        "Bearer " + identityToken)
                .status();
    }

    private static Secret secret(TenantEnvironmentId id) {
        return client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_SECRET)
                .get();
    }

    private static String secretToken(TenantEnvironmentId id) {
        return new String(
                Base64.getDecoder().decode(secret(id).getData().get(WorkerSecretKeys.IDENTITY_TOKEN)),
                StandardCharsets.US_ASCII);
    }

    private static String rolledAt(TenantEnvironmentId id) {
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .get();
        var annotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(ManagedNames.ROLLED_AT_ANNOTATION);
    }

    static Secret secret(TenantEnvironmentId id, String identityToken) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName(ManagedNames.WORKER_SECRET)
                .withNamespace(id.namespace())
                .withLabels(ManagedNames.labelsOf(id))
                .endMetadata()
                .addToData(
                        WorkerSecretKeys.IDENTITY_TOKEN,
                        Base64.getEncoder().encodeToString(identityToken.getBytes(StandardCharsets.US_ASCII)))
                .addToData(WorkerSecretKeys.COMMAND_KEY, COMMAND_KEY)
                .build();
    }

    static Deployment deployment(TenantEnvironmentId id) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(ManagedNames.WORKER)
                .withNamespace(id.namespace())
                .withLabels(ManagedNames.labelsOf(id))
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(ManagedNames.labelsOf(id))
                .endMetadata()
                .endTemplate()
                .endSpec()
                .build();
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        @Primary
        KubernetesClient mockKubernetesClient() {
            return client;
        }

        @Bean
        RecordingReconciler reconciler() {
            return new RecordingReconciler();
        }
    }
}
