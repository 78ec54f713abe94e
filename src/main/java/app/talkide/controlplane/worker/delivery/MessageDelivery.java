package app.talkide.controlplane.worker.delivery;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.conversation.MessageAccepted;
import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.conversation.OutboxMessage;
import app.talkide.controlplane.observability.LogContext;
import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.client.MessageOutcome;
import app.talkide.controlplane.worker.client.SessionUnknown;
import app.talkide.controlplane.worker.client.WorkerCallFailed;
import app.talkide.controlplane.worker.client.WorkerClient;
import app.talkide.controlplane.worker.stream.TurnEnds;
import app.talkide.controlplane.worker.stream.WorkerStatusNotices;
import app.talkide.controlplane.worker.stream.WorkerStreams;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import tools.jackson.databind.json.JsonMapper;

/**
 * Delivers each conversation's accepted messages from the outbox to its worker, oldest first. A message
 * is marked delivered only after the worker answered 202, and the worker refuses a new message (409)
 * while a turn runs, so messages go one turn at a time and in order even when several replicas deliver
 * the same conversation. Nothing is lost on a restart: what is not marked delivered is delivered again,
 * and the worker's idempotency on the message id turns a repeat into a no-op.
 */
@Component
class MessageDelivery implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(MessageDelivery.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final MessageOutbox outbox;
    private final ConversationDirectory directory;
    private final WorkerLocator runtime;
    private final WorkerClient client;
    private final WorkerStreams streams;
    private final TurnEnds turnEnds;
    private final WorkerStatusNotices notices;
    private final ConversationEventLog eventLog;
    private final WorkerProperties.Delivery settings;
    private final Traces traces;
    /** One delivery loop per conversation on this replica; the flag asks a running loop to look again. */
    private final Map<UUID, Boolean> running = new ConcurrentHashMap<>();

    private final TaskScheduler scheduler;
    /** Waits between attempts while the worker is not ready or unreachable, with jitter so replicas do not retry in step. */
    private final ExponentialBackOff backOff;

    private volatile boolean active;
    private volatile @Nullable ScheduledFuture<?> sweeper;

    MessageDelivery(
            MessageOutbox outbox,
            ConversationDirectory directory,
            WorkerLocator runtime,
            WorkerClient client,
            WorkerStreams streams,
            TurnEnds turnEnds,
            WorkerStatusNotices notices,
            ConversationEventLog eventLog,
            WorkerProperties properties,
            Traces traces,
            TaskScheduler scheduler) {
        this.outbox = outbox;
        this.directory = directory;
        this.runtime = runtime;
        this.client = client;
        this.streams = streams;
        this.turnEnds = turnEnds;
        this.notices = notices;
        this.eventLog = eventLog;
        this.settings = properties.delivery();
        this.traces = traces;
        this.scheduler = scheduler;
        this.backOff = retryPolicy(settings);
    }

    /** {@code initial-backoff} doubling up to {@code max-backoff}, each wait up to a quarter off either way. */
    static ExponentialBackOff retryPolicy(WorkerProperties.Delivery settings) {
        ExponentialBackOff policy =
                new ExponentialBackOff(settings.initialBackoff().toMillis(), 2.0);
        policy.setMaxInterval(settings.maxBackoff().toMillis());
        policy.setJitter(settings.initialBackoff().toMillis() / 4);
        return policy;
    }

    /** After the accepting transaction commits, so the outbox row is there to read. */
    @TransactionalEventListener(fallbackExecution = true)
    void onMessageAccepted(MessageAccepted accepted) {
        schedule(accepted.conversationId());
    }

    /** Starts a delivery loop for the conversation, or tells the running one to look again. */
    void schedule(UUID conversationId) {
        if (!active) {
            return;
        }
        if (running.put(conversationId, Boolean.TRUE) == null) {
            Thread.ofVirtual().name("deliver-" + conversationId).start(() -> loop(conversationId));
        }
    }

    private void loop(UUID conversationId) {
        try {
            do {
                running.put(conversationId, Boolean.FALSE);
                deliverAll(conversationId);
            } while (active && !running.remove(conversationId, Boolean.FALSE));
        } catch (InterruptedException e) {
            running.remove(conversationId);
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            running.remove(conversationId);
            // The sweep picks the conversation up again; the outbox still holds every message.
            log.warn("Delivery to the worker of {} failed; the sweep retries", conversationId, e);
        }
    }

    private void deliverAll(UUID conversationId) throws InterruptedException {
        Optional<ConversationScope> scope = directory.scopeOf(conversationId);
        if (scope.isEmpty()) {
            return;
        }
        try (LogContext ids = LogContext.of(
                scope.get().tenantEnvironment().tenant(),
                scope.get().tenantEnvironment().env(),
                conversationId,
                scope.get().ownerUserId())) {
            deliverAll(scope.get());
        }
    }

    private void deliverAll(ConversationScope scope) throws InterruptedException {
        UUID conversationId = scope.conversationId();
        BackOffExecution backoff = backOff.start();
        Optional<OutboxMessage> next;
        while (active && (next = outbox.nextUndelivered(conversationId)).isPresent()) {
            OutboxMessage message = next.get();
            WorkerLocation location = runtime.locate(scope.tenantEnvironment());
            if (!location.isReady()) {
                notices.report(conversationId, statusOf(location.readiness()), location.detail());
                Thread.sleep(backoff.nextBackOff());
                continue;
            }
            try {
                if (attempt(scope, location, message)) {
                    backoff = backOff.start();
                }
            } catch (WorkerCallFailed failed) {
                notices.callFailed(conversationId, failed);
                Thread.sleep(backoff.nextBackOff());
            }
        }
    }

    /** One delivery attempt; true if the message was delivered or settled. */
    private boolean attempt(ConversationScope scope, WorkerLocation location, OutboxMessage message)
            throws WorkerCallFailed, InterruptedException {
        UUID conversationId = scope.conversationId();
        TurnEnds.Waiter turnEnd;
        MessageOutcome outcome;
        // Continues the trace of the browser request that sent the message (stored with it in the outbox).
        try (Traces.SpanScope span = traces.continueTrace("deliver message", message.traceParent())) {
            span.tag("talkide.message.id", message.id().toString());
            client.openSession(location, conversationId, scope.ownerUserId(), true);
            streams.ensureConsuming(scope);
            turnEnd = turnEnds.next(conversationId);
            try {
                outcome = client.postMessage(location, conversationId, message.id(), message.text());
            } catch (SessionUnknown unknown) {
                return false; // the worker lost the session between the two calls: open it again
            }
            span.tag("talkide.delivery.outcome", outcome.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (outcome == MessageOutcome.WORKER_BUSY) {
            // Every engine is busy: it stays queued, the user is told, offered again after the busy poll.
            notices.report(
                    conversationId,
                    WorkerStatusNotices.BUSY,
                    "Every engine of the worker is busy; the message is queued.");
            Thread.sleep(settings.busyPoll().toMillis());
            return false;
        }
        notices.ready(conversationId);
        switch (outcome) {
            case ACCEPTED -> {
                outbox.markDelivered(message.id());
                return true;
            }
            case BUSY -> {
                // A turn is running: wait for its end (seen here at once if this replica consumes the
                // stream; otherwise ask again after a short poll).
                Duration wait = streams.consumesLocally(conversationId) ? settings.maxBackoff() : settings.busyPoll();
                turnEnd.await(wait);
                return false;
            }
            case REJECTED -> {
                reject(conversationId, message);
                return true;
            }
            case WORKER_BUSY -> {
                return false; // handled above
            }
        }
        return false;
    }

    /**
     * The worker will never take this message: say so in the conversation and let the queue move on. The
     * event carries a key of its own (never a worker's {@code epoch-seq} id), so a rejection repeated
     * after a failure before {@code markDelivered}, or by another replica at the same time, is appended
     * once.
     */
    private void reject(UUID conversationId, OutboxMessage message) {
        var error = JSON.createObjectNode()
                .put("type", "message_rejected")
                .put("message", "The worker refused this message (for example, it is too long).");
        var data = JSON.createObjectNode().put("messageId", message.id().toString());
        data.set("error", error);
        eventLog.append(
                conversationId,
                List.of(new NewConversationEvent(
                        "turn.failed", JSON.writeValueAsString(data), "talkide-rejected-" + message.id())));
        outbox.markDelivered(message.id());
    }

    private static String statusOf(WorkerReadiness readiness) {
        return switch (readiness) {
            case READY -> WorkerStatusNotices.READY;
            case STARTING -> WorkerStatusNotices.STARTING;
            case UNAVAILABLE -> WorkerStatusNotices.UNAVAILABLE;
        };
    }

    /** After a restart, once this instance serves requests (a local worker needs its gateway up). */
    @EventListener(ApplicationReadyEvent.class)
    void resumeAfterStart() {
        sweep();
    }

    /** Resumes whatever was accepted but not delivered: after a restart, and periodically for messages a dead replica had taken. */
    void sweep() {
        outbox.conversationsWithUndelivered().forEach(this::schedule);
    }

    @Override
    public void start() {
        active = true;
        Duration every = settings.sweepInterval();
        sweeper = scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        sweep();
                    } catch (RuntimeException e) {
                        log.warn("Delivery sweep failed: {}", e.getMessage());
                    }
                },
                scheduler.getClock().instant().plus(every),
                every);
    }

    @Override
    public void stop() {
        active = false;
        ScheduledFuture<?> current = sweeper;
        sweeper = null;
        if (current != null) {
            current.cancel(true);
        }
    }

    @Override
    public boolean isRunning() {
        return active;
    }
}
