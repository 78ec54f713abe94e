package app.talkide.controlplane.bench;

import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.provisioning.TenantEnvironmentReconciler;
import app.talkide.controlplane.provisioning.leader.LeaderElection;
import app.talkide.controlplane.provisioning.schedule.ReconcileScheduler;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Provisioning against the fabric8 CRUD mock server, counted at the server: the time and API calls to
 * provision one tenant-environment, then a full resync of N (default 500) tenant-environments in a
 * steady state, which must make no write call. The application runs in {@code kubernetes} mode with its
 * own beans (leader election, scheduler, informer); the reconciler is the application's own when it
 * has one, else {@link BenchStandInReconciler}. Lease renewals are counted apart: they are the
 * election's, not the resync's. Baseline in the same run: the same number of plain GETs of one
 * object, one after the other, so the resync time reads as a multiple of bare round trips.
 *
 * <p>Arguments: [tenant-environments].
 */
public final class ProvisioningResync {

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        KubernetesMockServer server = new KubernetesMockServer(
                new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        KubernetesClient client = server.createClient();
        try (ConfigurableApplicationContext app = start(client)) {
            var scheduler = app.getBean(ReconcileScheduler.class);
            var reconciler = app.getBean(TenantEnvironmentReconciler.class);
            var meters = app.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> app.getBean(LeaderElection.class).isLeader());
            if (!app.getBean(LeaderElection.class).isLeader()) {
                throw new IllegalStateException("The application did not become leader on the mock server");
            }
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            System.out.printf(
                    "reconciler: %s%n",
                    reconciler instanceof BenchStandInReconciler
                            ? "stand-in (reads 11 objects, creates what is missing): no reconciler in this build"
                            : reconciler.getClass().getName());

            for (int i = 0; i < count; i++) {
                putDesiredState(port, TenantEnvironmentId.of("t" + i, "dev"));
            }
            // Whatever the PUTs triggered (until no pass ends for a quarter of a second), then a first full
            // pass that provisions everything.
            AtomicLong lastSeen = new AtomicLong(-1);
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> lastSeen.getAndSet(passes(meters)) == passes(meters));
            resyncAndWait(scheduler, meters, count);
            drain(server);

            // One new tenant-environment as an admin creates it: from the PUT to the end of the leader's
            // immediate pass that provisions it.
            TenantEnvironmentId one = TenantEnvironmentId.of("fresh", "dev");
            long passesBefore = passes(meters);
            long started = System.nanoTime();
            putDesiredState(port, one);
            await().atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> passes(meters) != passesBefore);
            long oneNanos = System.nanoTime() - started;
            Calls oneCalls = drain(server);
            var result = reconciler.reconcile(one);
            drain(server);

            // Every registered tenant-environment (local mode's seeded demo/dev included).
            int all = app.getBean(TenantEnvironments.class).all().size();
            // Warm-up resync, then the measured one.
            resyncAndWait(scheduler, meters, all);
            drain(server);
            started = System.nanoTime();
            resyncAndWait(scheduler, meters, all);
            long resyncNanos = System.nanoTime() - started;
            Calls resync = drain(server);

            started = System.nanoTime();
            for (int i = 0; i < resync.reads; i++) {
                client.namespaces().withName("t0-dev").get();
            }
            long baselineNanos = System.nanoTime() - started;
            drain(server);

            System.out.printf(
                    "provision one tenant-environment, PUT to the end of the leader's pass: %d ms, %d reads, %d writes; a second pass: %d writes%n",
                    oneNanos / 1_000_000, oneCalls.reads, oneCalls.writes, result.writes());
            System.out.printf(
                    "steady-state resync of %d tenant-environments: %d ms, %d reads, %d writes, %d lease calls"
                            + " (%.1f reads per tenant-environment)%n",
                    all,
                    resyncNanos / 1_000_000,
                    resync.reads,
                    resync.writes,
                    resync.lease,
                    resync.reads / (double) all);
            System.out.printf(
                    "baseline: %d sequential GETs of one Namespace: %d ms; resync / baseline = %.2f%n",
                    resync.reads, baselineNanos / 1_000_000, resyncNanos / (double) Math.max(baselineNanos, 1));
            System.out.println(
                    resync.writes == 0 ? "OK: no write call in a steady state" : "FAIL: writes in a steady state");
        } finally {
            client.close();
            server.destroy();
        }
    }

    private static ConfigurableApplicationContext start(KubernetesClient client) throws Exception {
        String data = Files.createTempDirectory("bench-provisioning").toString();
        return new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers(ctx -> {
                    ctx.getBeanFactory().registerSingleton("benchKubernetesClient", client);
                    ctx.addBeanFactoryPostProcessor(factory -> {
                        boolean hasOwn =
                                factory.getBeanNamesForType(TenantEnvironmentReconciler.class, true, false).length > 0;
                        if (!hasOwn) {
                            ((DefaultListableBeanFactory) factory)
                                    .registerSingleton("benchStandInReconciler", new BenchStandInReconciler(client));
                        }
                    });
                })
                .run(
                        "--server.port=0",
                        "--talkide.data-dir=" + data,
                        "--spring.datasource.url=jdbc:h2:mem:bench;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;"
                                + "DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1",
                        "--talkide.worker.runtime=kubernetes",
                        "--talkide.provisioning.leader.lease-namespace=default",
                        "--talkide.provisioning.schedule.resync-interval=1h",
                        "--logging.level.root=WARN",
                        "--logging.level.io.fabric8.mockwebserver=WARN");
    }

    private static void putDesiredState(int port, TenantEnvironmentId id) throws Exception {
        HttpRequest put = HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + port + "/api/admin/tenant-environments/" + id.tenant() + "/" + id.env()))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("dev:dev".getBytes()))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"image\":\"ghcr.io/talkide/worker:bench\"}"))
                .build();
        HttpResponse<String> response = HTTP.send(put, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("PUT " + id + ": " + response.statusCode() + " " + response.body());
        }
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** Starts a full resync and waits until every tenant-environment has had its pass. */
    private static void resyncAndWait(ReconcileScheduler scheduler, MeterRegistry meters, int expected)
            throws InterruptedException {
        long before = passes(meters);
        scheduler.resyncAll();
        await().atMost(Duration.ofMinutes(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> passes(meters) >= before + expected);
    }

    private static long passes(MeterRegistry meters) {
        return meters.find("talkide.provisioning.reconcile.duration").timers().stream()
                .mapToLong(Timer::count)
                .sum();
    }

    /** Takes every request the server recorded so far and sorts it into reads, writes and lease calls. */
    private static Calls drain(KubernetesMockServer server) throws InterruptedException {
        Calls calls = new Calls();
        RecordedRequest request;
        while ((request = server.takeRequest(200, TimeUnit.MILLISECONDS)) != null) {
            String path = request.getPath();
            if (path.contains("/coordination.k8s.io/")) {
                calls.lease++;
            } else if ("GET".equals(request.getMethod())) {
                calls.reads++;
            } else {
                calls.writes++;
            }
        }
        return calls;
    }

    private static final class Calls {
        int reads;
        int writes;
        int lease;
    }

    private ProvisioningResync() {}
}
