package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.GatewayProperties;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * Ends upstream bodies (event streams and JSON answers alike) that went silent. The upstream client
 * reads a body with no timeout, and a connection that died without a FIN (a dropped NAT entry, a vanished
 * peer) would otherwise hold its thread, its reservation and the worker's connection forever. One sweep
 * on the application's scheduler for all bodies: a read costs a volatile write, not a timer.
 */
@Component
class StallWatchdog implements DisposableBean {

    private final Set<Watched> streams = ConcurrentHashMap.newKeySet();
    private final long idleNanos;
    private final ScheduledFuture<?> sweeping;

    StallWatchdog(GatewayProperties properties, TaskScheduler scheduler) {
        this.idleNanos = properties.streamIdleTimeout().toNanos();
        Duration period = Duration.ofMillis(
                Math.max(50, Math.min(1_000, properties.streamIdleTimeout().toMillis() / 4)));
        this.sweeping = scheduler.scheduleWithFixedDelay(this::sweep, period);
    }

    Watched watch(InputStream upstream) {
        Watched watched = new Watched(upstream);
        streams.add(watched);
        return watched;
    }

    private void sweep() {
        long now = System.nanoTime();
        for (Watched watched : streams) {
            if (now - watched.lastActivity > idleNanos || watched.drainedTooLong(now)) {
                watched.stall();
            }
        }
    }

    /**
     * Sweeps until the context destroys its beans: after the web server's graceful shutdown, so the calls
     * it waits for are still watched, and before the scheduler this bean depends on.
     */
    @Override
    public void destroy() {
        sweeping.cancel(false);
    }

    /** One upstream body under watch; {@link #touched()} after every read, {@link #close()} when done. */
    final class Watched implements AutoCloseable {

        private final InputStream upstream;
        private final Thread reader = Thread.currentThread();
        private volatile long lastActivity = System.nanoTime();
        /** Once the answer is complete: when the rest of the body must have ended (0 until then). */
        private volatile long drainDeadline;

        private volatile boolean stalled;
        private boolean finished;

        private Watched(InputStream upstream) {
            this.upstream = upstream;
        }

        void touched() {
            lastActivity = System.nanoTime();
        }

        boolean stalled() {
            return stalled;
        }

        /**
         * The worker has its whole answer; what the upstream still sends is only read so its connection can
         * serve the next call. An upstream that keeps the body open past {@code grace} (even with bytes that
         * reset the idle timeout) is cut off, so a finished call holds no thread or connection for long.
         */
        void answered(Duration grace) {
            drainDeadline = Math.max(1, System.nanoTime() + grace.toNanos());
        }

        private boolean drainedTooLong(long now) {
            long deadline = drainDeadline;
            return deadline != 0 && now - deadline > 0;
        }

        Duration idleTimeout() {
            return Duration.ofNanos(idleNanos);
        }

        /** Under the lock, so it can neither fire after {@link #finished()} nor interrupt after it cleared. */
        private synchronized void stall() {
            if (finished) {
                return;
            }
            stalled = true;
            streams.remove(this);
            try {
                // Closing the body cancels the upstream call; the interrupt wakes the relay's blocked read,
                // which then fails and ends the stream.
                upstream.close();
            } catch (IOException ignored) {
                // it is being abandoned either way
            } finally {
                reader.interrupt();
            }
        }

        /** The relay is done reading: no stall from now on, and an interrupt a stall left is cleared. */
        synchronized void finished() {
            finished = true;
            if (stalled) {
                Thread.interrupted();
            }
        }

        @Override
        public void close() {
            finished();
            streams.remove(this);
        }
    }
}
