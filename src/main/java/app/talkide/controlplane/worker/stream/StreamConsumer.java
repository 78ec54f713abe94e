package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.client.SessionUnknown;
import app.talkide.controlplane.worker.client.SseEventReader.SseEvent;
import app.talkide.controlplane.worker.client.WorkerCallFailed;
import app.talkide.controlplane.worker.client.WorkerClient;
import app.talkide.controlplane.worker.client.WorkerEventStream;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one conversation's worker stream while this replica holds its lease: connects with the last
 * worker event id, appends what arrives to the event log in batches (whatever is already buffered goes in
 * one append), and reconnects with backoff when the stream breaks or the worker restarts. Stops when told
 * to (lease lost, idle, shutdown).
 */
final class StreamConsumer implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(StreamConsumer.class);
    private static final int MAX_BATCH = 256;

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
    private final Clock clock;
    private final MeterRegistry meters;

    private volatile boolean running = true;
    private volatile @Nullable WorkerEventStream open;
    private volatile @Nullable String cursor;
    private volatile @Nullable String cursorWritten;
    private volatile Instant lastCursorWrite = Instant.EPOCH;
    private volatile Instant idleSince;
    private volatile boolean turnRunning;
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
            MeterRegistry meters) {
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
        this.clock = clock;
        this.meters = meters;
        this.cursor = lease.lastEventId();
        this.cursorWritten = lease.lastEventId();
        this.demandSeen = lease.demand();
        this.idleSince = clock.instant();
    }

    @Override
    public void run() {
        Duration backoff = settings.reconnectBackoff();
        while (running) {
            WorkerLocation location = runtime.locate(scope.tenantEnvironment());
            try {
                if (!location.isReady()) {
                    throw new WorkerCallFailed(0, location.detail());
                }
                try (WorkerEventStream stream = client.openStream(location, scope.conversationId(), cursor)) {
                    open = stream;
                    if (!running) {
                        return;
                    }
                    if (pump(stream)) {
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
    private boolean pump(WorkerEventStream stream) throws IOException {
        boolean any = false;
        List<NewConversationEvent> batch = new ArrayList<>();
        SseEvent event;
        while (running && (event = stream.next()) != null) {
            any = true;
            String lastId = accept(event, batch);
            while (batch.size() < MAX_BATCH && stream.ready()) {
                SseEvent more = stream.next();
                if (more == null) {
                    break;
                }
                lastId = accept(more, batch);
            }
            boolean turnEnded = batch.stream().anyMatch(e -> WorkerEventMapper.TURN_ENDS.contains(e.type()));
            if (!batch.isEmpty()) {
                eventLog.append(scope.conversationId(), List.copyOf(batch));
                meters.counter("talkide.worker.events.appended").increment(batch.size());
            }
            if (lastId != null) {
                cursor = lastId;
            }
            if (turnEnded) {
                writeCursor();
                turnEnds.ended(scope.conversationId());
            } else if (Duration.between(lastCursorWrite, clock.instant()).compareTo(settings.cursorInterval()) >= 0) {
                writeCursor();
            }
            batch.clear();
        }
        return any;
    }

    /** Maps one event into the batch; returns its id when it moves the cursor. */
    private @Nullable String accept(SseEvent event, List<NewConversationEvent> batch) {
        WorkerEventMapper.Mapped mapped = mapper.map(event);
        mapped.dropped()
                .ifPresent(reason -> meters.counter(
                                "talkide.worker.events.dropped",
                                "reason",
                                reason.name().toLowerCase(java.util.Locale.ROOT))
                        .increment());
        mapped.event().ifPresent(e -> {
            batch.add(e);
            switch (e.type()) {
                case "turn.started" -> turnRunning = true;
                case "turn.completed", "turn.failed" -> {
                    turnRunning = false;
                    idleSince = clock.instant();
                }
                default -> {}
            }
        });
        return event.id() == null || event.id().isEmpty() ? null : event.id();
    }

    private void reopen(WorkerLocation location) {
        try {
            client.openSession(location, scope.conversationId(), scope.ownerUserId(), true);
            notices.ready(scope.conversationId());
        } catch (WorkerCallFailed e) {
            log.debug("Reopening the session of {} failed: {}", scope.conversationId(), e.getMessage());
        }
    }

    void writeCursor() {
        String current = cursor;
        lastCursorWrite = clock.instant();
        if (current != null && !current.equals(cursorWritten)) {
            if (leases.recordCursor(scope.conversationId(), holder, current, clock.instant())) {
                cursorWritten = current;
            } else {
                stop(); // someone else holds the stream now; the event log's de-duplication covers the overlap
            }
        }
    }

    ConversationScope scope() {
        return scope;
    }

    @Nullable
    String cursor() {
        return cursor;
    }

    void markCursorWritten(@Nullable String written) {
        if (written != null) {
            cursorWritten = written;
        }
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
        return !turnRunning && Duration.between(idleSince, clock.instant()).compareTo(settings.idleRelease()) >= 0;
    }

    /** Something new was asked of this stream: the idle period starts over. */
    void touched() {
        idleSince = clock.instant();
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
