package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.eventlog.Feed;
import app.talkide.controlplane.conversation.eventlog.FeedSubscriber;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee11.servlet.ServletChannel;

/**
 * One open browser stream. While idle it holds no thread and no buffer, only its cursor (the last
 * sequence number written). Woken by its feed or the heartbeat, it pulls what follows the cursor, from
 * the feed's ring when it is there, from the log while replaying, and writes it in one flush. A live
 * stream that falls more than the queue capacity behind is closed; the client resumes from its last id.
 */
final class BrowserStream implements FeedSubscriber, AsyncListener {

    private final UUID conversationId;
    private final TenantEnvironmentId tenantEnvironment;
    private final String userId;
    private final AsyncContext async;
    private final ServletChannel channel;
    private final BrowserStreams streams;
    private final AtomicInteger wakeups = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Feed feed;
    private volatile boolean heartbeatDue;
    private volatile long lastWriteNanos = System.nanoTime();
    /** Written by the drain only, which never runs twice at once; read by the publisher's overflow check. */
    private volatile long cursor;
    /** Caught up with the feed at least once: from now on falling behind is overflow, not replay. */
    private volatile boolean live;

    BrowserStream(
            UUID conversationId,
            TenantEnvironmentId tenantEnvironment,
            String userId,
            long cursor,
            AsyncContext async,
            ServletChannel channel,
            BrowserStreams streams) {
        this.conversationId = conversationId;
        this.tenantEnvironment = tenantEnvironment;
        this.userId = userId;
        this.cursor = cursor;
        this.async = async;
        this.channel = channel;
        this.streams = streams;
    }

    UUID conversationId() {
        return conversationId;
    }

    TenantEnvironmentId tenantEnvironment() {
        return tenantEnvironment;
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
    public void wake(long head) {
        if (live && head - cursor > streams.properties().queueCapacity()) {
            // Too far behind, most likely stuck in a write to a client that does not read: cut it now
            // rather than when that write returns, which may be never.
            overflow();
            return;
        }
        wake();
    }

    void wake() {
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
            Feed.Slice slice = feed.after(cursor, properties.writeBatch(), SseFormat::event);
            List<ConversationEvent> batch;
            List<byte[]> parts;
            if (slice == null) {
                if (live) {
                    overflow();
                    return;
                }
                batch = streams.log().readAfter(conversationId, cursor, properties.replayPage());
                parts = batch.isEmpty() ? List.of() : List.of(SseFormat.events(batch));
            } else if (live && feed.head() - cursor > properties.queueCapacity()) {
                overflow();
                return;
            } else {
                batch = slice.events();
                // The feed's shared encodings, each formatted once however many subscribers write it; copied
                // straight into the response buffer, so a thousand subscribers allocate nothing per event.
                parts = slice.encoded();
            }
            if (parts.isEmpty()) {
                live = true;
                if (heartbeatDue) {
                    write(List.of(SseFormat.HEARTBEAT));
                }
                return;
            }
            write(parts);
            if (live) {
                streams.recordLag(batch.getFirst());
            }
            cursor = batch.getLast().seq();
        }
    }

    /** The parts in one flush. */
    private void write(List<byte[]> parts) throws IOException {
        var out = async.getResponse().getOutputStream();
        for (byte[] part : parts) {
            out.write(part);
        }
        out.flush();
        heartbeatDue = false;
        lastWriteNanos = System.nanoTime();
    }

    /**
     * Aborts the connection: a write blocked on a client that does not read fails at once and frees its
     * buffer. What the client got so far is whole events; it reconnects from the last one.
     */
    private void overflow() {
        if (closed.get()) {
            return;
        }
        streams.overflowed();
        release();
        channel.abort(new IOException("the subscriber fell more than the queue capacity behind"));
    }

    /** Ends the response (the client reconnects with its last id) and frees everything this stream held. */
    void close() {
        if (release()) {
            try {
                async.complete();
            } catch (IllegalStateException alreadyOver) {
                // the container ended it first (client gone)
            }
        }
    }

    private boolean release() {
        if (!closed.compareAndSet(false, true)) {
            return false;
        }
        streams.released(this, feed);
        return true;
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
