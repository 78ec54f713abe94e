package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.client.SessionUnknown;
import app.talkide.controlplane.worker.client.WorkerCallFailed;
import app.talkide.controlplane.worker.client.WorkerClient;
import app.talkide.controlplane.worker.client.WorkerEventStream;
import app.talkide.controlplane.workercontract.SseEventReader.SseEvent;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The reading half of a {@link StreamConsumer}: connects to the worker stream from the cursor, queues what
 * arrives for the appender, and reconnects with backoff when the stream breaks or the worker restarts.
 * Connections are numbered, so reads from one whose append failed can be told apart and dropped.
 */
final class StreamReader {

    private static final Logger log = LoggerFactory.getLogger(StreamReader.class);

    private final ConversationScope scope;
    private final WorkerLocator runtime;
    private final WorkerClient client;
    private final WorkerStatusNotices notices;
    private final StreamCursor cursor;
    private final TurnActivity activity;
    private final MeterRegistry meters;
    private final BlockingQueue<StreamRead> reads;
    private final ExponentialBackOff reconnect;
    private final WorkerEventMapper mapper = new WorkerEventMapper();
    private final Object connecting = new Object();
    private volatile boolean running = true;
    private volatile @Nullable WorkerEventStream open;
    /** Counts the connections to the worker stream; reads carry the number of theirs. */
    private volatile long connection;
    /** The last connection whose append failed: its remaining reads are dropped. */
    private volatile long failedConnection = -1;

    private boolean warnedUnauthorized;

    StreamReader(
            ConversationScope scope,
            WorkerLocator runtime,
            WorkerClient client,
            WorkerStatusNotices notices,
            WorkerProperties.Stream settings,
            StreamCursor cursor,
            TurnActivity activity,
            MeterRegistry meters,
            BlockingQueue<StreamRead> reads) {
        this.scope = scope;
        this.runtime = runtime;
        this.client = client;
        this.notices = notices;
        this.cursor = cursor;
        this.activity = activity;
        this.meters = meters;
        this.reads = reads;
        // reconnect-backoff doubling up to max-backoff, a quarter off either way so streams do not reconnect in step
        this.reconnect = new ExponentialBackOff(settings.reconnectBackoff().toMillis(), 2.0);
        reconnect.setMaxInterval(settings.maxBackoff().toMillis());
        reconnect.setJitter(settings.reconnectBackoff().toMillis() / 4);
    }

    /** Reads until stopped. */
    void run() {
        BackOffExecution backoff = reconnect.start();
        while (running) {
            WorkerLocation location = runtime.locate(scope.tenantEnvironment());
            try {
                if (!location.isReady()) {
                    throw new WorkerCallFailed(0, location.detail());
                }
                try (WorkerEventStream stream = client.openStream(location, scope.conversationId(), cursor.current())) {
                    long current;
                    synchronized (connecting) {
                        current = ++connection;
                        open = stream;
                    }
                    if (!running) {
                        return;
                    }
                    if (pump(stream, current)) {
                        backoff = reconnect.start();
                    }
                }
            } catch (SessionUnknown unknown) {
                // The worker lost or never had the session: reopen it (resuming its transcript) and reconnect.
                reopen(location);
            } catch (WorkerCallFailed e) {
                if (running && (e.status() == 401 || e.status() == 403) && !warnedUnauthorized) {
                    // The worker refuses our command tokens: its Secret's command key is not ours (an operator's
                    // problem, e.g. a master-key rotation the worker has not picked up). Say it once, keep trying.
                    warnedUnauthorized = true;
                    log.warn(
                            "The worker of {} refuses the control plane's command tokens: {}",
                            scope.tenantEnvironment(),
                            e.getMessage());
                } else if (running) {
                    log.debug("Worker stream of {} unavailable: {}", scope.conversationId(), e.getMessage());
                }
            } catch (IOException e) {
                if (running) {
                    log.debug("Worker stream of {} broke: {}", scope.conversationId(), e.getMessage());
                }
            } catch (RuntimeException e) {
                log.warn("Worker stream of {} failed; reconnecting", scope.conversationId(), e);
            } finally {
                open = null;
            }
            if (running) {
                sleep(Duration.ofMillis(backoff.nextBackOff()));
            }
        }
    }

    /** Reads until the stream ends; true if at least one event came (the connection was healthy). */
    private boolean pump(WorkerEventStream stream, long current) throws IOException {
        boolean any = false;
        SseEvent event;
        while (running && (event = stream.next()) != null) {
            any = true;
            StreamRead read = new StreamRead(
                    current, accept(event), event.id() == null || event.id().isEmpty() ? null : event.id());
            try {
                while (!reads.offer(read, 100, TimeUnit.MILLISECONDS)) {
                    if (!running || failedConnection >= current) {
                        return any;
                    }
                }
            } catch (InterruptedException e) {
                running = false;
                Thread.currentThread().interrupt();
            }
        }
        return any;
    }

    /** Maps one event; null if it is dropped (counted), which still moves the cursor past it. */
    private @Nullable NewConversationEvent accept(SseEvent event) {
        WorkerEventMapper.Mapped mapped = mapper.map(event);
        mapped.dropped()
                .ifPresent(reason -> meters.counter(
                                "talkide.worker.events.dropped",
                                "reason",
                                reason.name().toLowerCase(Locale.ROOT))
                        .increment());
        mapped.event().ifPresent(activity::saw);
        return mapped.event().orElse(null);
    }

    private void reopen(WorkerLocation location) {
        try {
            client.openSession(location, scope.conversationId(), scope.ownerUserId(), true);
            notices.ready(scope.conversationId());
        } catch (WorkerCallFailed e) {
            log.debug("Reopening the session of {} failed: {}", scope.conversationId(), e.getMessage());
        }
    }

    /** Whether reads of {@code connection} came after a failed append on it (the worker sends them again). */
    boolean failedBefore(long connection) {
        return connection <= failedConnection;
    }

    /** An append of reads from {@code failing} failed: close that connection, so reading resumes from the cursor. */
    void appendFailed(long failing) {
        synchronized (connecting) {
            failedConnection = Math.max(failedConnection, failing);
            WorkerEventStream stream = open;
            if (stream != null && connection == failing) {
                stream.close();
            }
        }
    }

    /** A stream that has carried nothing, not even a heartbeat, for longer than {@code silence} is cut. */
    void cutIfSilent(Duration silence) {
        WorkerEventStream stream = open;
        if (stream != null && stream.silentFor().compareTo(silence) > 0) {
            stream.close();
        }
    }

    void stop() {
        running = false;
        WorkerEventStream stream = open;
        if (stream != null) {
            stream.close();
        }
    }

    boolean isRunning() {
        return running;
    }

    private void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            running = false;
            Thread.currentThread().interrupt();
        }
    }
}
