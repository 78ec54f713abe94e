package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import app.talkide.controlplane.worker.client.WorkerClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * This replica's share of the worker streams. A stream is consumed where its lease is held: claimed when
 * a delivery needs it, renewed on a timer, taken over by the periodic sweep when its holder stopped
 * renewing (crash) or handed it over (graceful shutdown), and let go after a quiet period.
 */
@Component
public class WorkerStreams implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WorkerStreams.class);
    private static final int SWEEP_BATCH = 100;

    private final String holder = "replica-" + UUID.randomUUID();
    private final Map<UUID, StreamConsumer> consumers = new ConcurrentHashMap<>();
    private final StreamLeaseRepository leases;
    private final ConversationDirectory directory;
    private final WorkerLocator runtime;
    private final WorkerClient client;
    private final ConversationEventLog eventLog;
    private final TurnEnds turnEnds;
    private final WorkerStatusNotices notices;
    private final WorkerProperties properties;
    private final Clock clock;
    private final MeterRegistry meters;
    private final MessageOutbox messages;
    private final Traces traces;
    private final TaskScheduler scheduler;
    /** The renew and sweep timers while running; empty when stopped. Written under this. */
    private volatile List<ScheduledFuture<?>> timers = List.of();
    /** Set by {@link #stop} and {@link #abandon}: from then on nothing is claimed here. Guarded by this. */
    private boolean stopped;

    WorkerStreams(
            StreamLeaseRepository leases,
            ConversationDirectory directory,
            WorkerLocator runtime,
            WorkerClient client,
            ConversationEventLog eventLog,
            TurnEnds turnEnds,
            WorkerStatusNotices notices,
            WorkerProperties properties,
            Clock clock,
            MeterRegistry meters,
            MessageOutbox messages,
            Traces traces,
            TaskScheduler scheduler) {
        this.leases = leases;
        this.directory = directory;
        this.runtime = runtime;
        this.client = client;
        this.eventLog = eventLog;
        this.turnEnds = turnEnds;
        this.notices = notices;
        this.properties = properties;
        this.clock = clock;
        this.meters = meters;
        this.messages = messages;
        this.traces = traces;
        this.scheduler = scheduler;
        Gauge.builder("talkide.worker.streams.consumed", consumers, Map::size).register(meters);
    }

    /**
     * Makes sure someone consumes the conversation's worker stream: this replica if the lease is free,
     * otherwise the replica that holds it (which learns of the new demand and does not let go).
     */
    public void ensureConsuming(ConversationScope scope) {
        UUID id = scope.conversationId();
        leases.demand(id, clock.instant());
        StreamConsumer existing = consumers.get(id);
        if (existing != null && existing.isRunning()) {
            existing.touched();
            return;
        }
        claim(scope);
    }

    /** Whether this replica consumes the conversation's stream now. */
    public boolean consumesLocally(UUID conversationId) {
        StreamConsumer consumer = consumers.get(conversationId);
        return consumer != null && consumer.isRunning();
    }

    private synchronized void claim(ConversationScope scope) {
        if (stopped) {
            // A delivery still finishing during shutdown: a lease taken now would never be renewed or
            // handed over, and every other replica would wait for it to expire.
            return;
        }
        UUID id = scope.conversationId();
        StreamConsumer existing = consumers.get(id);
        if (existing != null && existing.isRunning()) {
            return;
        }
        leases.claim(id, holder, clock.instant(), properties.stream().leaseTtl())
                .ifPresent(lease -> {
                    StreamConsumer consumer = new StreamConsumer(
                            scope,
                            lease,
                            holder,
                            runtime,
                            client,
                            eventLog,
                            leases,
                            turnEnds,
                            notices,
                            properties,
                            clock,
                            meters,
                            new TurnLog(clock, messages, traces));
                    consumers.put(id, consumer);
                    Thread.ofVirtual().name("worker-stream-" + id).start(consumer);
                    log.debug("Consuming the worker stream of {} from {}", id, lease.lastEventId());
                });
    }

    /** Renews every lease held here; drops streams whose lease was lost, cuts silent ones, lets idle ones go. */
    void renew() {
        consumers.forEach((id, consumer) -> {
            if (!consumer.isRunning()) {
                consumers.remove(id, consumer);
                return;
            }
            String cursor = consumer.cursor();
            var demand = leases.renew(
                    id, holder, cursor, clock.instant(), properties.stream().leaseTtl());
            if (demand.isEmpty()) {
                log.info("Lost the worker stream lease of {}; another replica consumes it now", id);
                consumer.stop();
                consumers.remove(id, consumer);
                return;
            }
            consumer.markCursorWritten(cursor);
            if (demand.get() != consumer.demandSeen) {
                consumer.demandSeen = demand.get();
                consumer.touched();
            }
            consumer.cutIfSilent();
            if (consumer.isIdle() && leases.release(id, holder, cursor, consumer.demandSeen, clock.instant())) {
                consumer.stop();
                consumers.remove(id, consumer);
            }
        });
    }

    /** Claims active streams nobody holds: their holder died or handed them over. */
    void sweep() {
        for (UUID id : leases.orphaned(clock.instant(), SWEEP_BATCH)) {
            if (!consumers.containsKey(id)) {
                directory.scopeOf(id).ifPresent(this::claim);
            }
        }
    }

    @EventListener
    void onReadinessChanged(WorkerReadinessChanged changed) {
        String status = switch (changed.readiness()) {
            case READY -> WorkerStatusNotices.READY;
            case STARTING -> WorkerStatusNotices.STARTING;
            case UNAVAILABLE -> WorkerStatusNotices.UNAVAILABLE;
        };
        consumers.values().stream()
                .filter(consumer -> consumer.scope().tenantEnvironment().equals(changed.tenantEnvironment()))
                .forEach(consumer -> notices.report(consumer.scope().conversationId(), status, changed.detail()));
        if (changed.readiness() == WorkerReadiness.READY) {
            log.debug("Worker of {} ready", changed.tenantEnvironment());
        }
    }

    @Override
    public synchronized void start() {
        stopped = false;
        Duration renewEvery = properties.stream().leaseRenewInterval();
        timers = List.of(
                scheduler.scheduleWithFixedDelay(
                        guarded(this::renew), scheduler.getClock().instant().plus(renewEvery), renewEvery),
                scheduler.scheduleWithFixedDelay(
                        guarded(this::sweep), properties.stream().sweepInterval()));
    }

    /** Graceful shutdown hands every stream over at once, so another replica need not wait for expiry. */
    @Override
    public synchronized void stop() {
        stopped = true;
        cancelTimers();
        consumers.forEach((id, consumer) -> {
            consumer.stop();
            try {
                leases.handOver(id, holder, consumer.cursor(), clock.instant());
            } catch (RuntimeException e) {
                log.debug("Could not hand over the worker stream of {}; it expires instead", id);
            }
        });
        consumers.clear();
    }

    /** Stops consuming without handing anything over, as a killed replica would (failover tests). */
    synchronized void abandon() {
        stopped = true;
        cancelTimers();
        consumers.values().forEach(StreamConsumer::stop);
        consumers.clear();
    }

    /** Interrupts a renewal or sweep in progress, as stopping always has: nothing it does must outlast us. */
    private void cancelTimers() {
        timers.forEach(timer -> timer.cancel(true));
        timers = List.of();
    }

    @Override
    public boolean isRunning() {
        return !timers.isEmpty();
    }

    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // A database hiccup must not kill the timer; the next tick tries again.
                log.warn("Worker stream maintenance failed: {}", e.getMessage());
            }
        };
    }
}
