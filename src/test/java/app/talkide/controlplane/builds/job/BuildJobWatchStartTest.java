package app.talkide.controlplane.builds.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.builds.Build;
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
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Starting and stopping the build Job informer. Becoming leader starts it without waiting for its list and
 * watch: the dispatcher does it under its one lock, so an API server slow to answer them (BuildJobsTest once
 * waited 30 s in vain for a Job) must not hold up the dispatch of queued builds. Losing the Lease stops it at
 * once from the election's thread, even while the dispatcher's thread is half way through starting it.
 */
class BuildJobWatchStartTest {

    private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
    private final Builds builds = mock(Builds.class);
    private ServerSocket silent;
    private KubernetesClient client;

    @BeforeEach
    void apiServerThatNeverAnswers() throws Exception {
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.initialize();
        // Accepts connections and never answers: the list the informer starts with waits for its 120 s timeout.
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + silent.getLocalPort())
                        .withRequestTimeout(120_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
    }

    @AfterEach
    void close() throws Exception {
        client.close();
        silent.close();
        scheduler.shutdown();
    }

    @Test
    void startingTheInformerDoesNotWaitForAnApiServerThatDoesNotAnswer() {
        when(builds.running()).thenReturn(List.of());
        BuildJobWatch watch = watch();

        assertTimeoutPreemptively(Duration.ofSeconds(40), () -> watch.start(Runnable::run, () -> true));
        assertThat(watch.watching()).isTrue();

        // Started but not synced: adoption waits for the store rather than failing every build.
        watch.adoptOrphans();
        assertThat(builds.running()).isEmpty();
        watch.stop();
        assertThat(watch.watching()).isFalse();
    }

    @Test
    void aLeaseLostWhileTheInformerStartsLeavesNoInformerAndNoLogCopyRunning() throws Exception {
        Build running = mock(Build.class);
        when(running.id()).thenReturn(UUID.randomUUID());
        CountDownLatch inStart = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The start reads the running builds (to copy their logs) and is held there while the Lease is lost.
        when(builds.running()).thenAnswer(call -> {
            inStart.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            return List.of(running);
        });
        AtomicBoolean leads = new AtomicBoolean(true);
        BuildJobWatch watch = watch();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> starting = threads.submit(() -> watch.start(Runnable::run, leads::get));
            assertThat(inStart.await(30, TimeUnit.SECONDS)).isTrue();
            leads.set(false);
            Future<?> stopping = threads.submit(watch::stop); // the election's thread, at once
            release.countDown();
            starting.get(30, TimeUnit.SECONDS);
            stopping.get(30, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }

        assertThat(watch.watching()).as("an informer left running").isFalse();
        assertThat(scheduler.getScheduledThreadPoolExecutor().getQueue())
                .as("log copies left scheduled")
                .isEmpty();
        // Nor does a start that comes after the loss (a sweep queued before it) begin again.
        watch.start(Runnable::run, leads::get);
        assertThat(watch.watching()).isFalse();
    }

    private BuildJobWatch watch() {
        return new BuildJobWatch(client, builds, properties(), mock(BuildLog.class), Clock.systemUTC(), scheduler);
    }

    private static BuildProperties properties() {
        return new Binder(new MapConfigurationPropertySource(Map.of("talkide.builds.enabled", "true")))
                .bindOrCreate("talkide.builds", BuildProperties.class);
    }
}
