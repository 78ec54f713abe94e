package app.talkide.controlplane.worker.stream;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a worker stream resumes: the id of the last worker event whose append committed. It moves after
 * each committed append and is recorded in the stream's lease at a turn's end and at most every
 * {@code cursorInterval} otherwise, on a thread of its own, so neither reading nor appending waits for the
 * database. A refused record means another replica holds the stream now: {@code lost} runs.
 */
final class StreamCursor {

    private static final Logger log = LoggerFactory.getLogger(StreamCursor.class);

    private final UUID conversationId;
    private final String holder;
    private final StreamLeaseRepository leases;
    private final Duration interval;
    private final Clock clock;
    private final Runnable lost;
    private final AtomicInteger writes = new AtomicInteger();
    private volatile @Nullable String current;
    private volatile @Nullable String written;
    private volatile Instant lastWrite = Instant.EPOCH;

    StreamCursor(
            UUID conversationId,
            @Nullable String start,
            String holder,
            StreamLeaseRepository leases,
            Duration interval,
            Clock clock,
            Runnable lost) {
        this.conversationId = conversationId;
        this.holder = holder;
        this.leases = leases;
        this.interval = interval;
        this.clock = clock;
        this.lost = lost;
        this.current = start;
        this.written = start;
    }

    @Nullable
    String current() {
        return current;
    }

    /** An append committed up to {@code lastId} (null: it carried no id); records it when due. */
    void committed(@Nullable String lastId, boolean turnEnded) {
        if (lastId != null) {
            current = lastId;
        }
        if (turnEnded || Duration.between(lastWrite, clock.instant()).compareTo(interval) >= 0) {
            requestWrite();
        }
    }

    /** Records the cursor in the lease now, on the caller's thread, unless it already is. */
    void write() {
        String cursor = current;
        if (cursor != null && !cursor.equals(written)) {
            if (leases.recordCursor(conversationId, holder, cursor, clock.instant())) {
                written = cursor;
            } else {
                lost.run(); // someone else holds the stream now; the event log's de-duplication covers the overlap
            }
        }
    }

    /** Someone else recorded {@code cursor} (a batched lease renewal). */
    void markWritten(@Nullable String cursor) {
        if (cursor != null) {
            written = cursor;
        }
    }

    private void requestWrite() {
        lastWrite = clock.instant();
        if (writes.getAndIncrement() == 0) {
            Thread.ofVirtual().name("worker-stream-cursor-" + conversationId).start(() -> {
                int requests = writes.get();
                do {
                    try {
                        write();
                    } catch (RuntimeException e) {
                        log.debug("Could not record the cursor of {}: {}", conversationId, e.getMessage());
                    }
                    requests = writes.addAndGet(-requests);
                } while (requests != 0);
            });
        }
    }
}
