package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The appending half of a {@link StreamConsumer}: appends everything the reader queued in one call, ends
 * turns a restarted worker orphaned ({@link OrphanedTurns}), writes the turn's log line ({@link TurnLog}),
 * wakes deliveries waiting for a turn end, and moves the cursor only after the append committed.
 */
final class StreamAppender {

    private static final Logger log = LoggerFactory.getLogger(StreamAppender.class);
    private static final int MAX_BATCH = 256;

    private final UUID conversationId;
    private final ConversationEventLog eventLog;
    private final TurnEnds turnEnds;
    private final TurnLog turnLog;
    private final StreamCursor cursor;
    private final MeterRegistry meters;
    private final BlockingQueue<StreamRead> reads;
    private final StreamReader reader;

    StreamAppender(
            UUID conversationId,
            ConversationEventLog eventLog,
            TurnEnds turnEnds,
            TurnLog turnLog,
            StreamCursor cursor,
            MeterRegistry meters,
            BlockingQueue<StreamRead> reads,
            StreamReader reader) {
        this.conversationId = conversationId;
        this.eventLog = eventLog;
        this.turnEnds = turnEnds;
        this.turnLog = turnLog;
        this.cursor = cursor;
        this.meters = meters;
        this.reads = reads;
        this.reader = reader;
    }

    /** Appends until the reader stops or this thread is interrupted. */
    void run() {
        List<StreamRead> taken = new ArrayList<>();
        List<NewConversationEvent> batch = new ArrayList<>();
        while (reader.isRunning()) {
            try {
                taken.add(reads.take());
            } catch (InterruptedException e) {
                return;
            }
            reads.drainTo(taken, MAX_BATCH - 1);
            String lastId = null;
            long newest = -1;
            for (StreamRead read : taken) {
                if (reader.failedBefore(read.connection())) {
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
                    List<NewConversationEvent> closed = OrphanedTurns.close(eventLog, conversationId, batch);
                    if (closed != batch) {
                        batch.clear();
                        batch.addAll(closed);
                    }
                    eventLog.append(conversationId, List.copyOf(batch));
                    meters.counter("talkide.worker.events.appended").increment(batch.size());
                }
            } catch (RuntimeException e) {
                // Drop what was read after it on that connection and reconnect from the cursor, which is still
                // the last committed event.
                log.warn("Appending worker events of {} failed; reconnecting to read them again", conversationId, e);
                reader.appendFailed(newest);
                batch.clear();
                continue;
            }
            boolean turnEnded = batch.stream().anyMatch(e -> WorkerEventMapper.TURN_ENDS.contains(e.type()));
            turnLog.appended(batch);
            batch.clear();
            if (turnEnded) {
                turnEnds.ended(conversationId);
            }
            cursor.committed(lastId, turnEnded);
        }
    }
}
