package app.talkide.controlplane.builds.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.builds.BuildLog;
import app.talkide.controlplane.builds.BuildProperties;
import app.talkide.controlplane.builds.Builds;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Becoming leader starts the build Job informer without waiting for its list and watch: the dispatcher does it
 * under its one lock, so an API server slow to answer them (BuildJobsTest once waited 30 s in vain for a Job)
 * must not hold up the dispatch of queued builds.
 */
class BuildJobWatchStartTest {

    @Test
    void startingTheInformerDoesNotWaitForAnApiServerThatDoesNotAnswer() throws Exception {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        // Accepts connections and never answers: the list the informer starts with waits for its 120 s timeout.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                KubernetesClient client = new KubernetesClientBuilder()
                        .withConfig(new ConfigBuilder()
                                .withMasterUrl("http://127.0.0.1:" + silent.getLocalPort())
                                .withRequestTimeout(120_000)
                                .withRequestRetryBackoffLimit(0)
                                .build())
                        .build()) {
            Builds builds = mock(Builds.class);
            when(builds.running()).thenReturn(List.of());
            BuildJobWatch watch =
                    new BuildJobWatch(client, builds, properties(), mock(BuildLog.class), Clock.systemUTC(), scheduler);

            assertTimeoutPreemptively(Duration.ofSeconds(40), () -> watch.start(Runnable::run));

            // Started but not synced: adoption waits for the store rather than failing every build.
            watch.adoptOrphans();
            assertThat(builds.running()).isEmpty();
            watch.stop();
        } finally {
            scheduler.shutdown();
        }
    }

    private static BuildProperties properties() {
        return new Binder(new MapConfigurationPropertySource(Map.of("talkide.builds.enabled", "true")))
                .bindOrCreate("talkide.builds", BuildProperties.class);
    }
}
