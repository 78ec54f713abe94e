package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * One conversation's recent events on this replica, while anyone here follows it: a ring of the last
 * events in sequence order without gaps, shared by all its subscribers, so a thousand subscribers cost
 * one copy of each event and no database reads. Events arrive out of order or with gaps when several
 * replicas append; the feed then reads what it lacks from the log, once, for everyone.
 *
 * <p>Each event is also encoded for the wire once, by the first subscriber that reads it, and the bytes are
 * shared. Subscribers are woken at most once per fan-out interval: events committed in between go out
 * together, so a busy conversation costs each subscriber one write per interval, not one per commit.
 */
public final class Feed {

    private static final Logger log = LoggerFactory.getLogger(Feed.class);

    private final UUID conversationId;
    private final ConversationEvent[] ring;
    /** The encoding of the event in the same slot of {@link #ring}, once a subscriber asked for it. */
    private final byte[][] encoded;

    private final EventLogRepository repository;
    private final Executor executor;
    private final TaskScheduler announcer;
    private final long fanOutIntervalNanos;
    private final long nanosPerSubscriber;
    private final int page;
    final Set<FeedSubscriber> subscribers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger refreshRequests = new AtomicInteger();
    /** The highest sequence number this feed has, with everything before it in the log. */
    private long head;
    /** How many events up to {@code head} the ring holds. */
    private int size;
    /** When subscribers were last woken (System.nanoTime), and whether a wake-up is already scheduled. */
    private long announcedNanos;

    private boolean announcing;

    Feed(
            UUID conversationId,
            long head,
            int capacity,
            EventLogRepository repository,
            Executor executor,
            TaskScheduler announcer,
            long fanOutIntervalNanos,
            int wakeupsPerSecond) {
        this.conversationId = conversationId;
        this.head = head;
        this.ring = new ConversationEvent[capacity];
        this.encoded = new byte[capacity][];
        this.repository = repository;
        this.executor = executor;
        this.announcer = announcer;
        this.fanOutIntervalNanos = fanOutIntervalNanos;
        this.nanosPerSubscriber = TimeUnit.SECONDS.toNanos(1) / wakeupsPerSecond;
        // never woken yet: the first events go out at once, whatever the interval
        this.announcedNanos = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
        this.page = Math.max(1, capacity / 2);
    }

    public UUID conversationId() {
        return conversationId;
    }

    public synchronized long head() {
        return head;
    }

    /**
     * Up to {@code max} events after {@code cursor}, oldest first, each with its encoding; empty when the
     * cursor is at the head; {@code null} when the ring no longer (or not yet) holds the event after the
     * cursor: read the log. An event is encoded once, by the first subscriber that reads it; every
     * subscriber of a feed passes the same encoding.
     */
    public synchronized @Nullable Slice after(long cursor, int max, Function<ConversationEvent, byte[]> encoding) {
        if (cursor >= head) {
            return Slice.EMPTY;
        }
        if (cursor < head - size) {
            return null;
        }
        int count = (int) Math.min(max, head - cursor);
        List<ConversationEvent> events = new ArrayList<>(count);
        List<byte[]> bytes = new ArrayList<>(count);
        for (long seq = cursor + 1; seq <= cursor + count; seq++) {
            int slot = slot(seq);
            if (encoded[slot] == null) {
                encoded[slot] = encoding.apply(ring[slot]);
            }
            events.add(ring[slot]);
            bytes.add(encoded[slot]);
        }
        return new Slice(events, bytes);
    }

    /** Consecutive events of the feed and their encodings, in the same order. */
    public record Slice(List<ConversationEvent> events, List<byte[]> encoded) {

        static final Slice EMPTY = new Slice(List.of(), List.of());

        public boolean isEmpty() {
            return events.isEmpty();
        }
    }

    /** Takes the events that continue the feed; a gap makes the feed read the log instead. */
    void offer(List<ConversationEvent> events) {
        offer(events, false);
    }

    /**
     * @param fromLog the events were read from the log, which has the last word: a gap between them is a
     *     range compaction folded (its sequence numbers are gone for good), not events still to come. The
     *     ring then starts again after the gap; subscribers behind it read the log.
     */
    private void offer(List<ConversationEvent> events, boolean fromLog) {
        boolean advanced = false;
        boolean gap = false;
        long wakeNow = -1;
        long wakeIn = -1;
        synchronized (this) {
            for (ConversationEvent event : events) {
                if (event.seq() <= head) {
                    continue;
                }
                if (event.seq() != head + 1) {
                    if (!fromLog) {
                        gap = true;
                        break;
                    }
                    head = event.seq() - 1;
                    size = 0;
                }
                ring[slot(event.seq())] = event;
                encoded[slot(event.seq())] = null;
                head = event.seq();
                size = Math.min(size + 1, ring.length);
                advanced = true;
            }
            if (advanced && !announcing) {
                long now = System.nanoTime();
                long interval = interval();
                long due = announcedNanos + interval;
                if (now - due >= 0 && interval == fanOutIntervalNanos) {
                    announcedNanos = now;
                    wakeNow = head;
                } else {
                    // Woken a moment ago: the events committed until then go out with these. A large
                    // audience is woken by the announcer even when due, so that the thread that committed
                    // (the group-commit writer) does not start a thousand writes before its next commit.
                    announcing = true;
                    wakeIn = Math.max(0, due - now);
                }
            }
        }
        if (wakeNow >= 0) {
            wake(wakeNow);
        } else if (wakeIn >= 0) {
            announcer.schedule(this::announce, announcer.getClock().instant().plusNanos(wakeIn));
        }
        if (gap) {
            refresh();
        }
    }

    /**
     * A write to a subscriber costs about the same for one event or twenty: the more subscribers, the
     * longer the feed lets events gather before it wakes them all, so one busy conversation's fan-out
     * stays within its wake-ups per second (a thousand subscribers at 100,000/s: every 10 ms).
     */
    private long interval() {
        return Math.max(fanOutIntervalNanos, subscribers.size() * nanosPerSubscriber);
    }

    private void announce() {
        long reached;
        synchronized (this) {
            announcing = false;
            announcedNanos = System.nanoTime();
            reached = head;
        }
        wake(reached);
    }

    private void wake(long reached) {
        subscribers.forEach(subscriber -> subscriber.wake(reached));
    }

    /** Reads from the log whatever follows the head; requests while a read runs fold into one more read. */
    void refresh() {
        if (refreshRequests.getAndIncrement() == 0) {
            executor.execute(this::refreshLoop);
        }
    }

    private void refreshLoop() {
        int requests = refreshRequests.get();
        do {
            try {
                List<ConversationEvent> read;
                do {
                    read = repository.readAfter(conversationId, head(), page);
                    offer(read, true);
                } while (read.size() == page);
            } catch (RuntimeException e) {
                // The next notification or append tries again; subscribers only wait.
                log.warn("Could not read new events of conversation {}: {}", conversationId, e.getMessage());
            }
            requests = refreshRequests.addAndGet(-requests);
        } while (requests != 0);
    }

    private int slot(long seq) {
        return (int) Math.floorMod(seq, (long) ring.length);
    }
}
