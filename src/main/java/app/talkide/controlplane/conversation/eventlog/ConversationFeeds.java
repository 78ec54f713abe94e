package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * The feeds of the conversations someone follows on this replica. A feed exists while it has
 * subscribers; appends on this replica are offered after their commit, appends elsewhere arrive as
 * notifications and are read from the log.
 */
@Component
public class ConversationFeeds implements DisposableBean {

    private final Map<UUID, Feed> feeds = new ConcurrentHashMap<>();
    private final EventLogRepository repository;
    private final EventLogProperties properties;
    private final ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
    /** Wakes the subscribers of feeds whose last wake-up was less than the fan-out interval ago. */
    private final TaskScheduler announcer;

    ConversationFeeds(EventLogRepository repository, EventLogProperties properties, TaskScheduler announcer) {
        this.repository = repository;
        this.properties = properties;
        this.announcer = announcer;
    }

    /** Starts following the conversation; its feed starts at the log's current end. */
    public Feed join(UUID conversationId, FeedSubscriber subscriber) {
        Feed existing = feeds.computeIfPresent(conversationId, (id, feed) -> {
            feed.subscribers.add(subscriber);
            return feed;
        });
        if (existing != null) {
            return existing;
        }
        // Read outside the map's lock; a head that is stale by the time the feed exists is caught up below.
        long head = repository.lastSeq(conversationId);
        boolean[] created = {false};
        Feed feed = feeds.compute(conversationId, (id, current) -> {
            Feed joined = current;
            if (joined == null) {
                joined = new Feed(
                        id,
                        head,
                        properties.ringSize(),
                        repository,
                        readers,
                        announcer,
                        properties.fanOutInterval().toNanos(),
                        properties.fanOutWakeupsPerSecond());
                created[0] = true;
            }
            joined.subscribers.add(subscriber);
            return joined;
        });
        if (created[0]) {
            // Appends committed before the feed was visible were published to nobody: read them now.
            feed.refresh();
        }
        return feed;
    }

    public void leave(Feed feed, FeedSubscriber subscriber) {
        feeds.computeIfPresent(feed.conversationId(), (id, existing) -> {
            existing.subscribers.remove(subscriber);
            return existing.subscribers.isEmpty() ? null : existing;
        });
    }

    /** Events this replica appended, just committed. */
    void published(UUID conversationId, List<ConversationEvent> events) {
        Feed feed = feeds.get(conversationId);
        if (feed != null && !events.isEmpty()) {
            feed.offer(events);
        }
    }

    /** Another replica appended up to {@code lastSeq}. */
    void appendedElsewhere(UUID conversationId, long lastSeq) {
        Feed feed = feeds.get(conversationId);
        if (feed != null && feed.head() < lastSeq) {
            feed.refresh();
        }
    }

    /** After notifications may have been lost (the listening connection broke): catch every feed up. */
    void refreshAll() {
        feeds.values().forEach(Feed::refresh);
    }

    int size() {
        return feeds.size();
    }

    @Override
    public void destroy() {
        readers.shutdownNow();
    }
}
