package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.eventlog.Feed;
import app.talkide.controlplane.conversation.eventlog.FeedSubscriber;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One open browser stream. While idle it holds no thread and no buffer, only its cursor (the last
 * sequence number written). Woken by its feed or the heartbeat, it pulls what follows the cursor, from
 * the feed's ring when it is there, from the log while replaying, and writes it in one flush. A live
 * stream that falls more than the queue capacity behind is closed; the client resumes from its last id.
 */
final class BrowserStream implements FeedSubscriber, AsyncListener {

    private final UUID conversationId;
    private final String userId;
    private final AsyncContext async;
    private final BrowserStreams streams;
    private final AtomicInteger wakeups = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Feed feed;
    private volatile boolean heartbeatDue;
    private volatile long lastWriteNanos = System.nanoTime();
    /** Touched by the drain only, which never runs twice at once. */
    private long cursor;

    private boolean live;

    BrowserStream(UUID conversationId, String userId, long cursor, AsyncContext async, BrowserStreams streams) {
        this.conversationId = conversationId;
        this.userId = userId;
        this.cursor = cursor;
        this.async = async;
        this.streams = streams;
    }

    UUID conversationId() {
        return conversationId;
    }

    String userId() {
        return userId;
    }

    void following(Feed joined) {
        this.feed = joined;
    }

    boolean isClosed() {
        return closed.get();
    }

    @Override
    public void wake() {
        if (wakeups.getAndIncrement() == 0) {
            streams.executor().execute(this::drainLoop);
        }
    }

    void heartbeatIfSilentFor(long nanos) {
        if (System.nanoTime() - lastWriteNanos >= nanos) {
            heartbeatDue = true;
            wake();
        }
    }

    private void drainLoop() {
        int handled = wakeups.get();
        do {
            try {
                drain();
            } catch (IOException | RuntimeException gone) {
                // The client went away (or the write failed): nothing to resume here, it reconnects itself.
                close();
            }
            handled = wakeups.addAndGet(-handled);
        } while (handled != 0);
    }

    private void drain() throws IOException {
        StreamProperties properties = streams.properties();
        while (!closed.get() && feed != null) {
            List<ConversationEvent> batch = feed.after(cursor, properties.writeBatch());
            if (batch == null) {
                if (live) {
                    overflow();
                    return;
                }
                batch = streams.log().readAfter(conversationId, cursor, properties.replayPage());
            } else if (live && feed.head() - cursor > properties.queueCapacity()) {
                overflow();
                return;
            }
            if (batch.isEmpty()) {
                live = true;
                if (heartbeatDue) {
                    write(SseFormat.HEARTBEAT);
                }
                return;
            }
            write(SseFormat.events(batch));
            if (live) {
                streams.recordLag(batch.getFirst());
            }
            cursor = batch.getLast().seq();
        }
    }

    private void write(byte[] bytes) throws IOException {
        var out = async.getResponse().getOutputStream();
        out.write(bytes);
        out.flush();
        heartbeatDue = false;
        lastWriteNanos = System.nanoTime();
    }

    private void overflow() {
        streams.overflowed();
        close();
    }

    /** Ends the response (the client reconnects with its last id) and frees everything this stream held. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Feed followed = feed;
        streams.released(this, followed);
        try {
            async.complete();
        } catch (IllegalStateException alreadyOver) {
            // the container ended it first (client gone)
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        close();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        close();
    }

    @Override
    public void onError(AsyncEvent event) {
        close();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // not restarted
    }
}
