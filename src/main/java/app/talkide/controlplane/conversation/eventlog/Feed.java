package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One conversation's recent events on this replica, while anyone here follows it: a ring of the last
 * events in sequence order without gaps, shared by all its subscribers, so a thousand subscribers cost
 * one copy of each event and no database reads. Events arrive out of order or with gaps when several
 * replicas append; the feed then reads what it lacks from the log, once, for everyone.
 */
public final class Feed {

    private static final Logger log = LoggerFactory.getLogger(Feed.class);

    private final UUID conversationId;
    private final ConversationEvent[] ring;
    private final EventLogRepository repository;
    private final Executor executor;
    private final int page;
    final Set<FeedSubscriber> subscribers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger refreshRequests = new AtomicInteger();
    /** The highest sequence number this feed has, with everything before it in the log. */
    private long head;
    /** How many events up to {@code head} the ring holds. */
    private int size;

    Feed(UUID conversationId, long head, int capacity, EventLogRepository repository, Executor executor) {
        this.conversationId = conversationId;
        this.head = head;
        this.ring = new ConversationEvent[capacity];
        this.repository = repository;
        this.executor = executor;
        this.page = Math.max(1, capacity / 2);
    }

    public UUID conversationId() {
        return conversationId;
    }

    public synchronized long head() {
        return head;
    }

    /**
     * Up to {@code max} events after {@code cursor}, oldest first; empty when the cursor is at the head;
     * {@code null} when the ring no longer (or not yet) holds the event after the cursor: read the log.
     */
    public synchronized @Nullable List<ConversationEvent> after(long cursor, int max) {
        if (cursor >= head) {
            return List.of();
        }
        if (cursor < head - size) {
            return null;
        }
        int count = (int) Math.min(max, head - cursor);
        List<ConversationEvent> events = new ArrayList<>(count);
        for (long seq = cursor + 1; seq <= cursor + count; seq++) {
            events.add(ring[slot(seq)]);
        }
        return events;
    }

    /** Takes the events that continue the feed; a gap makes the feed read the log instead. */
    void offer(List<ConversationEvent> events) {
        boolean advanced = false;
        boolean gap = false;
        long reached;
        synchronized (this) {
            for (ConversationEvent event : events) {
                if (event.seq() <= head) {
                    continue;
                }
                if (event.seq() != head + 1) {
                    gap = true;
                    break;
                }
                ring[slot(event.seq())] = event;
                head = event.seq();
                size = Math.min(size + 1, ring.length);
                advanced = true;
            }
            reached = head;
        }
        if (advanced) {
            subscribers.forEach(subscriber -> subscriber.wake(reached));
        }
        if (gap) {
            refresh();
        }
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
                    offer(read);
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
