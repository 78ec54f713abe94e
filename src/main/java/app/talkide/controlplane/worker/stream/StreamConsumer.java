package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.observability.LogContext;
import app.talkide.controlplane.worker.WorkerLocator;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.client.WorkerClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.jspecify.annotations.Nullable;

/**
 * Consumes one conversation's worker stream while this replica holds its lease, until told to stop (lease
 * lost, idle, shutdown). Pipelined: a {@link StreamReader} fills a bounded queue, a {@link StreamAppender}
 * on a thread of its own appends it; the {@link StreamCursor} moves only after a commit
 * (docs/conversations-worker.md, "lease and failover").
 */
final class StreamConsumer implements Runnable {

    /** Events read but not yet appended; the reader waits (and the worker's socket fills) beyond this. */
    private static final int MAX_QUEUED = 1024;

    private final ConversationScope scope;
    private final Duration silence;
    private final StreamCursor cursor;
    private final TurnActivity activity;
    private final StreamReader reader;
    private final StreamAppender appender;
    private volatile @Nullable Thread appending;
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
        this.silence = properties.streamSilence();
        WorkerProperties.Stream settings = properties.stream();
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
        BlockingQueue<StreamRead> reads = new ArrayBlockingQueue<>(MAX_QUEUED);
        this.reader = new StreamReader(scope, runtime, client, notices, settings, cursor, activity, meters, reads);
        this.appender =
                new StreamAppender(scope.conversationId(), eventLog, turnEnds, turnLog, cursor, meters, reads, reader);
    }

    @Override
    public void run() {
        appending = Thread.ofVirtual()
                .name("worker-stream-appender-" + scope.conversationId())
                .start(() -> {
                    try (LogContext ids = logContext()) {
                        appender.run();
                    }
                });
        try (LogContext ids = logContext()) {
            reader.run();
        } finally {
            interruptAppender();
        }
    }

    private LogContext logContext() {
        return LogContext.of(
                scope.tenantEnvironment().tenant(),
                scope.tenantEnvironment().env(),
                scope.conversationId(),
                scope.ownerUserId());
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
        reader.cutIfSilent(silence);
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
        reader.stop();
        interruptAppender();
    }

    boolean isRunning() {
        return reader.isRunning();
    }

    private void interruptAppender() {
        Thread stopping = appending;
        if (stopping != null) {
            stopping.interrupt();
        }
    }
}
