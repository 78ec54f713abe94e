package app.talkide.controlplane.provisioning.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.provisioning.RecordingReconciler;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.provisioning.schedule.ReconcileScheduler;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two control-plane replicas on one database and one (mock) API server: exactly one leads and
 * reconciles; when it stops, the other takes over and reconciles instead.
 */
@EnableKubernetesMockClient(crud = true)
class TwoReplicasLeaderElectionTest {

    static KubernetesMockServer server;

    final List<ConfigurableApplicationContext> replicas = new ArrayList<>();

    @TempDir
    Path dataDir;

    String lease;

    @AfterEach
    void stopReplicas() {
        replicas.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void exactlyOneReplicaReconcilesAndTheOtherTakesOverWhenItStops() {
        Map<String, Object> database = TestDatabase.freshSettings();
        lease = "shared";
        ConfigurableApplicationContext a = start("replica-a", database);
        ConfigurableApplicationContext b = start("replica-b", database);
        // Settled: the Lease names one replica, that one leads and the other does not (a start-up slow
        // enough to miss a renewal may hand the Lease over once before this).
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ("replica-a".equals(holder()) && leads(a) && !leads(b))
                        || ("replica-b".equals(holder()) && leads(b) && !leads(a)));
        ConfigurableApplicationContext leader = leads(a) ? a : b;
        ConfigurableApplicationContext follower = leader == a ? b : a;

        TenantEnvironmentId acme = TenantEnvironmentId.of("acme", "dev");
        leader.getBean(TenantEnvironments.class).register(acme);
        leader.getBean(ReconcileScheduler.class).resyncAll();
        follower.getBean(ReconcileScheduler.class).resyncAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> reconciler(leader).count(acme) >= 1);
        assertThat(reconciler(follower).reconciled).isEmpty();
        assertThat(holder()).isEqualTo(leader.getBean(LeaderElection.class).identity());

        leader.close();

        // Released on shutdown: the follower takes over within a retry period or two, not a lease duration.
        await().atMost(Duration.ofSeconds(10)).until(() -> leads(follower));
        assertThat(holder()).isEqualTo(follower.getBean(LeaderElection.class).identity());
        // Leading starts with a full resync.
        await().atMost(Duration.ofSeconds(10)).until(() -> reconciler(follower).count(acme) >= 1);
    }

    @Test
    void aLeaderThatVanishesWithoutReleasingIsReplacedWhenItsLeaseExpires() {
        lease = "abandoned";
        KubernetesClient client = server.createClient();
        // A Lease held by a replica that died a moment ago, without releasing it.
        client.leases()
                .inNamespace("test")
                .resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                        .withNewMetadata()
                        .withName(lease)
                        .withNamespace("test")
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity("replica-gone")
                        .withLeaseDurationSeconds(3)
                        .withAcquireTime(java.time.ZonedDateTime.now())
                        .withRenewTime(java.time.ZonedDateTime.now())
                        .withLeaseTransitions(0)
                        .endSpec()
                        .build())
                .create();

        ConfigurableApplicationContext a = start("replica-a", TestDatabase.freshSettings());

        assertThat(leads(a)).isFalse();
        await().atMost(Duration.ofSeconds(15)).until(() -> leads(a));
        assertThat(holder()).isEqualTo("replica-a");
    }

    private @org.jspecify.annotations.Nullable String holder() {
        Lease lease = server.createClient()
                .leases()
                .inNamespace("test")
                .withName(this.lease)
                .get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    private static boolean leads(ConfigurableApplicationContext replica) {
        return replica.isActive() && replica.getBean(LeaderElection.class).isLeader();
    }

    private static RecordingReconciler reconciler(ConfigurableApplicationContext replica) {
        return (RecordingReconciler) replica.getBean(TenantEnvironmentReconciler.class);
    }

    private ConfigurableApplicationContext start(String identity, Map<String, Object> database) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.main.web-application-type=none",
                "--talkide.data-dir=" + dataDir.resolve(identity),
                "--talkide.worker.runtime=kubernetes",
                "--talkide.provisioning.leader.identity=" + identity,
                "--talkide.provisioning.leader.lease-namespace=test",
                "--talkide.provisioning.leader.lease-name=" + lease,
                "--talkide.provisioning.leader.lease-duration=5s",
                "--talkide.provisioning.leader.renew-deadline=4s",
                "--talkide.provisioning.leader.retry-period=300ms",
                "--talkide.provisioning.schedule.resync-interval=1h"));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        KubernetesClient client = server.createClient();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers(ctx -> {
                    ctx.getBeanFactory().registerSingleton("mockKubernetesClient", client);
                    ctx.getBeanFactory().registerSingleton("recordingReconciler", new RecordingReconciler());
                })
                .run(args.toArray(String[]::new));
        replicas.add(context);
        return context;
    }
}
