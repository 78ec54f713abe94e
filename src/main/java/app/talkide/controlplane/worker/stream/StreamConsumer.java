package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.observability.LogContext;
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
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one conversation's worker stream while this replica holds its lease: connects with the last
 * worker event id, appends what arrives to the event log, and reconnects with backoff when the stream
 * breaks or the worker restarts. Stops when told to (lease lost, idle, shutdown).
 *
 * <p>Pipelined: a reader fills a bounded queue, an appender appends all that waits in one call; the
 * {@link StreamCursor} moves only after a commit (docs/conversations-worker.md, "lease and failover").
 */
final class StreamConsumer implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(StreamConsumer.class);
    private static final int MAX_BATCH = 256;
    /** Events read but not yet appended; the reader waits (and the worker's socket fills) beyond this. */
    private static final int MAX_QUEUED = 1024;

    /** One event read on connection {@code connection}; {@code event} is null for one the mapper dropped. */
    private record Read(
            long connection,
            @Nullable NewConversationEvent event,
            @Nullable String id) {}

    private final ConversationScope scope;
    private final String holder;
    private final WorkerLocator runtime;
    private final WorkerClient client;
    private final ConversationEventLog eventLog;
    private final StreamLeaseRepository leases;
    private final WorkerEventMapper mapper = new WorkerEventMapper();
    private final TurnEnds turnEnds;
    private final WorkerStatusNotices notices;
    private final WorkerProperties.Stream settings;
    private final Duration silence;
    private final MeterRegistry meters;

    private final ArrayBlockingQueue<Read> reads = new ArrayBlockingQueue<>(MAX_QUEUED);
    private final Object connecting = new Object();
    private volatile boolean running = true;
    private volatile @Nullable WorkerEventStream open;
    /** Counts the connections to the worker stream; reads carry the number of theirs. */
    private volatile long connection;
    /** The last connection whose append failed: its remaining reads are dropped. */
    private volatile long failedConnection = -1;

    private volatile @Nullable Thread appender;
    private final StreamCursor cursor;
    private final TurnActivity activity;
    private final TurnLog turnLog;
    private boolean warnedUnauthorized;
    volatile long demandSeen;

    StreamConsumer(
            ConversationScope scope,
            StreamLease lease,
            String holder,
            WorkerLocator runtime,
            WorkerClient client,
            ConversationEventLog eventLog,
            StreamLeaseRepository leases,
            TurnEnds turnEnds,
            WorkerStatusNotices notices,
            WorkerProperties properties,
            Clock clock,
            MeterRegistry meters,
            TurnLog turnLog) {
        this.scope = scope;
        this.holder = holder;
        this.runtime = runtime;
        this.client = client;
        this.eventLog = eventLog;
        this.leases = leases;
        this.turnEnds = turnEnds;
        this.notices = notices;
        this.settings = properties.stream();
        this.silence = properties.streamSilence();
        this.meters = meters;
        this.cursor = new StreamCursor(
                scope.conversationId(),
                lease.lastEventId(),
                holder,
                leases,
                settings.cursorInterval(),
                clock,
                this::stop);
        this.demandSeen = lease.demand();
        this.activity = new TurnActivity(settings.idleRelease(), clock);
        this.turnLog = turnLog;
    }

    @Override
    public void run() {
        appender = Thread.ofVirtual()
                .name("worker-stream-appender-" + scope.conversationId())
                .start(() -> {
                    try (LogContext ids = logContext()) {
                        appendLoop();
                    }
                });
        try (LogContext ids = logContext()) {
            read();
        } finally {
            Thread stopping = appender;
            if (stopping != null) {
                stopping.interrupt();
            }
        }
    }

    private void read() {
        Duration backoff = settings.reconnectBackoff();
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
                        backoff = settings.reconnectBackoff();
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
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(settings.maxBackoff()) > 0
                        ? settings.maxBackoff()
                        : backoff.multipliedBy(2);
            }
        }
    }

    /** Reads until the stream ends; true if at least one event came (the connection was healthy). */
    private boolean pump(WorkerEventStream stream, long current) throws IOException {
        boolean any = false;
        SseEvent event;
        while (running && (event = stream.next()) != null) {
            any = true;
            Read read = new Read(
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

    /** Appends what the reader queued, everything waiting in one call, until the consumer stops. */
    private void appendLoop() {
        List<Read> taken = new ArrayList<>();
        List<NewConversationEvent> batch = new ArrayList<>();
        while (running) {
            try {
                taken.add(reads.take());
            } catch (InterruptedException e) {
                return;
            }
            reads.drainTo(taken, MAX_BATCH - 1);
            String lastId = null;
            long newest = -1;
            for (Read read : taken) {
                if (read.connection() <= failedConnection) {
                    continue; // read after a failed append on the same connection: the worker sends it again
                }
                newest = read.connection();
                if (read.event() != null) {
                    batch.add(read.event());
                }
                if (read.id() != null) {
                    lastId = read.id();
                }
            }
            taken.clear();
            try {
                if (!batch.isEmpty()) {
                    List<NewConversationEvent> closed = OrphanedTurns.close(eventLog, scope.conversationId(), batch);
                    if (closed != batch) {
                        batch.clear();
                        batch.addAll(closed);
                    }
                    eventLog.append(scope.conversationId(), List.copyOf(batch));
                    meters.counter("talkide.worker.events.appended").increment(batch.size());
                }
            } catch (RuntimeException e) {
                failed(newest, e);
                batch.clear();
                continue;
            }
            boolean turnEnded = batch.stream().anyMatch(e -> WorkerEventMapper.TURN_ENDS.contains(e.type()));
            turnLog.appended(batch);
            batch.clear();
            if (turnEnded) {
                turnEnds.ended(scope.conversationId());
            }
            cursor.committed(lastId, turnEnded);
        }
    }

    /**
     * An append failed: drop what was read after it on that connection and close the connection, so the
     * reader reconnects from the cursor, which is still the last committed event.
     */
    private void failed(long failing, RuntimeException e) {
        log.warn("Appending worker events of {} failed; reconnecting to read them again", scope.conversationId(), e);
        synchronized (connecting) {
            failedConnection = Math.max(failedConnection, failing);
            WorkerEventStream stream = open;
            if (stream != null && connection == failing) {
                stream.close();
            }
        }
    }

    /** Maps one event; null if it is dropped (counted), which still moves the cursor past it. */
    private @Nullable NewConversationEvent accept(SseEvent event) {
        WorkerEventMapper.Mapped mapped = mapper.map(event);
        mapped.dropped()
                .ifPresent(reason -> meters.counter(
                                "talkide.worker.events.dropped",
                                "reason",
                                reason.name().toLowerCase(java.util.Locale.ROOT))
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

    private LogContext logContext() {
        return LogContext.of(
                scope.tenantEnvironment().tenant(),
                scope.tenantEnvironment().env(),
                scope.conversationId(),
                scope.ownerUserId());
    }

    void writeCursor() {
        cursor.write();
    }

    ConversationScope scope() {
        return scope;
    }

    @Nullable
    String cursor() {
        return cursor.current();
    }

    void markCursorWritten(@Nullable String written) {
        cursor.markWritten(written);
    }

    /** A stream that has carried nothing, not even a heartbeat, for too long is cut, so it reconnects. */
    void cutIfSilent() {
        WorkerEventStream stream = open;
        if (stream != null && stream.silentFor().compareTo(silence) > 0) {
            stream.close();
        }
    }

    /** No turn is running and none has for {@code idle-release}. */
    boolean isIdle() {
        return activity.isIdle();
    }

    /** Something new was asked of this stream: the idle period starts over. */
    void touched() {
        activity.touched();
    }

    void stop() {
        running = false;
        WorkerEventStream stream = open;
        if (stream != null) {
            stream.close();
        }
        Thread stopping = appender;
        if (stopping != null) {
            stopping.interrupt();
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
