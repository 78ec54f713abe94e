package app.talkide.controlplane.gateway.handler;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.gateway.GatewayProperties;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.unit.DataSize;

/**
 * The watchdog's sweep runs on the scheduler it is given: a body that stays silent past the idle timeout
 * is closed and its blocked reader woken, and the sweep ends with the bean.
 */
class StallWatchdogTest {

    private static final Duration IDLE = Duration.ofMillis(200);

    private final SweepRecordingScheduler scheduler = new SweepRecordingScheduler();

    StallWatchdogTest() {
        scheduler.initialize();
    }

    @AfterEach
    void stopScheduler() {
        scheduler.shutdown();
    }

    @Test
    void aBodyThatStaysSilentIsClosedAndItsBlockedReaderWoken() throws Exception {
        StallWatchdog watchdog = new StallWatchdog(properties(IDLE), scheduler);
        SilentBody body = new SilentBody();

        assertThat(readUntilEnded(watchdog, body).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(body.closed.getCount()).isZero();
        watchdog.destroy();
    }

    @Test
    void destroyEndsTheSweep() {
        StallWatchdog watchdog = new StallWatchdog(properties(IDLE), scheduler);
        // The sweep's own future, not the executor's queue: a sweep that is running leaves the queue empty.
        assertThat((Object) scheduler.sweep).isNotNull();
        assertThat(scheduler.sweep.isCancelled()).isFalse();

        watchdog.destroy();

        assertThat(scheduler.sweep.isCancelled()).isTrue();
    }

    /** The application's scheduler, keeping the future of the one repeating task the watchdog schedules. */
    private static final class SweepRecordingScheduler extends ThreadPoolTaskScheduler {

        volatile ScheduledFuture<?> sweep;

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
            sweep = super.scheduleWithFixedDelay(task, delay);
            return sweep;
        }
    }

    /** Reads on a thread of its own, as the relay does; completes with whether the watchdog stalled the body. */
    private static CompletableFuture<Boolean> readUntilEnded(StallWatchdog watchdog, InputStream body) {
        CompletableFuture<Boolean> stalled = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (StallWatchdog.Watched watched = watchdog.watch(body)) {
                try {
                    body.read();
                } catch (IOException ended) {
                    // closed or interrupted by the watchdog: the relay's read fails the same way
                }
                stalled.complete(watched.stalled());
            }
        });
        return stalled;
    }

    /** An upstream body on a connection that died without a FIN: a read blocks until it is closed. */
    private static final class SilentBody extends InputStream {

        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public int read() throws IOException {
            try {
                // Bounded like every wait in a test; the test has failed long before this runs out.
                if (!closed.await(1, TimeUnit.MINUTES)) {
                    throw new IOException("never closed");
                }
            } catch (InterruptedException interrupted) {
                throw new InterruptedIOException("interrupted");
            }
            throw new IOException("closed");
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    private static GatewayProperties properties(Duration streamIdleTimeout) {
        return new GatewayProperties(
                "",
                URI.create("https://api.anthropic.com"),
                "2023-06-01",
                Duration.ofSeconds(10),
                Duration.ofMinutes(10),
                streamIdleTimeout,
                DataSize.ofMegabytes(32),
                DataSize.ofMegabytes(256),
                DataSize.ofMegabytes(64),
                Duration.ofSeconds(60),
                4096,
                new GatewayProperties.Pricing(Map.of(), 125, 200, 10),
                GatewayProperties.UpstreamClientKind.JETTY);
    }
}
