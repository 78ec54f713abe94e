package app.talkide.controlplane.provisioning.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Stopping the election does not wait for an API call in flight: fabric8 cancels under the lock that its
 * Lease read holds through all its retries, so with the API server unreachable every pod stop (and every
 * production-mode test without a cluster) waited ~18 s for it. A replica that does not lead has no Lease
 * to release and stops at once.
 */
class LeaderElectionStopTest {

    /** Generous against a loaded machine; the read it must not wait for hangs 30 s. */
    static final Duration STOP_BOUND = Duration.ofSeconds(5);

    final List<Socket> connections = new CopyOnWriteArrayList<>();
    final CountDownLatch leaseRequested = new CountDownLatch(1);
    ServerSocket silentApiServer;
    KubernetesClient client;

    @AfterEach
    void close() throws IOException {
        if (client != null) {
            client.close();
        }
        for (Socket connection : connections) {
            connection.close();
        }
        silentApiServer.close();
    }

    @Test
    void aReplicaThatDoesNotLeadStopsWithoutWaitingForTheApiServer() throws Exception {
        silentApiServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::acceptAndNeverAnswer);
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + silentApiServer.getLocalPort())
                        .withNamespace("test")
                        .withRequestTimeout(30_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
        var properties = new LeaderElectionProperties(
                "test", "lease", "replica-a", Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
        LeaderElection election = new LeaderElection(client, properties, event -> {}, new SimpleMeterRegistry());

        election.start();
        assertThat(leaseRequested.await(30, TimeUnit.SECONDS))
                .as("the elector reads the Lease")
                .isTrue();
        long started = System.nanoTime();
        election.stop();
        Duration stopping = Duration.ofNanos(System.nanoTime() - started);

        assertThat(stopping).as("stop() with a Lease read in flight").isLessThan(STOP_BOUND);
        assertThat(election.isRunning()).isFalse();
        assertThat(election.isLeader()).isFalse();
    }

    /** An API server that takes every connection and never answers: the elector's read hangs. */
    private void acceptAndNeverAnswer() {
        try {
            while (!silentApiServer.isClosed()) {
                connections.add(silentApiServer.accept());
                leaseRequested.countDown();
            }
        } catch (IOException closed) {
            // The test is over.
        }
    }
}
