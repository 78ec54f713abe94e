package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.eventlog.ConversationFeeds;
import app.talkide.controlplane.conversation.eventlog.Feed;
import app.talkide.controlplane.membership.MembershipRevoked;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import org.eclipse.jetty.ee11.servlet.ServletChannel;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpHeaders;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * The browser streams open on this replica: opening them (per-user cap, headers, {@code retry:}),
 * heartbeats, and the metrics (open streams, fan-out lag, overflow disconnects).
 */
@Component
class BrowserStreams implements SmartLifecycle {

    private final Set<BrowserStream> open = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> perUser = new ConcurrentHashMap<>();
    private final ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor();
    private final ConversationFeeds feeds;
    private final ConversationEventLog log;
    private final Memberships memberships;
    private final StreamProperties properties;
    private final Clock clock;
    private final Timer lag;
    private final Counter overflows;
    private final TaskScheduler scheduler;
    /** The heartbeat and membership timers while running; empty when stopped. */
    private volatile List<ScheduledFuture<?>> timers = List.of();

    BrowserStreams(
            ConversationFeeds feeds,
            ConversationEventLog log,
            Memberships memberships,
            StreamProperties properties,
            Clock clock,
            MeterRegistry meters,
            TaskScheduler scheduler) {
        this.feeds = feeds;
        this.log = log;
        this.memberships = memberships;
        this.properties = properties;
        this.clock = clock;
        this.scheduler = scheduler;
        Gauge.builder("talkide.conversations.streams.open", open, Set::size)
                .description("Browser event streams open on this replica")
                .register(meters);
        this.lag = Timer.builder("talkide.conversations.fanout.lag")
                .description("From an event's append to its write to a browser stream")
                .publishPercentileHistogram()
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(meters);
        this.overflows = Counter.builder("talkide.conversations.streams.overflows")
                .description("Browser streams closed because they fell too far behind")
                .register(meters);
    }

    /** Starts the stream on this request: from here on the response belongs to the stream. */
    void open(
            UUID conversationId,
            TenantEnvironmentId tenantEnvironment,
            String userId,
            long afterSeq,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        reserve(userId);
        BrowserStream stream;
        try {
            response.setStatus(200);
            response.setContentType("text/event-stream;charset=UTF-8");
            response.setHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
            // nginx and other proxies must pass every event at once
            response.setHeader("X-Accel-Buffering", "no");
            response.getOutputStream().write(SseFormat.retry(properties.retry()));
            response.flushBuffer();
            // No arguments: later writes go to the container's response directly, not through the filters' wrappers.
            AsyncContext async = request.startAsync();
            async.setTimeout(0);
            ServletChannel channel =
                    ServletContextRequest.getServletContextRequest(request).getServletChannel();
            stream = new BrowserStream(conversationId, tenantEnvironment, userId, afterSeq, async, channel, this);
            async.addListener(stream);
        } catch (IOException | RuntimeException e) {
            unreserve(userId);
            throw e;
        }
        open.add(stream);
        Feed feed = feeds.join(conversationId, stream);
        stream.following(feed);
        if (stream.isClosed()) {
            // gone while joining: close() found no feed to leave
            feeds.leave(feed, stream);
            return;
        }
        stream.wake();
    }

    void released(BrowserStream stream, @Nullable Feed feed) {
        if (open.remove(stream)) {
            unreserve(stream.userId());
        }
        if (feed != null) {
            feeds.leave(feed, stream);
        }
    }

    private void reserve(String userId) {
        boolean[] granted = {false};
        perUser.compute(userId, (user, count) -> {
            int current = count == null ? 0 : count;
            if (current >= properties.maxPerUser()) {
                return count;
            }
            granted[0] = true;
            return current + 1;
        });
        if (!granted[0]) {
            throw new TooManyStreams(properties.maxPerUser());
        }
    }

    private void unreserve(String userId) {
        perUser.computeIfPresent(userId, (user, count) -> count <= 1 ? null : count - 1);
    }

    /**
     * A removed member's streams in that tenant-environment end at once (after the removal commits, so the
     * browser's reconnect finds it gone and gets 404 instead of the stream again).
     */
    @TransactionalEventListener(fallbackExecution = true)
    void on(MembershipRevoked revoked) {
        open.stream()
                .filter(stream -> stream.userId().equals(revoked.userId())
                        && stream.tenantEnvironment().equals(revoked.tenantEnvironment()))
                .forEach(BrowserStream::close);
    }

    /**
     * Ends the streams of users who are no longer members. The event covers removals made on this replica;
     * this covers those made on another one. One look-up per distinct user and tenant-environment.
     */
    void recheckMemberships() {
        Map<TenantEnvironmentId, Set<String>> holders = new HashMap<>();
        open.forEach(stream -> holders.computeIfAbsent(stream.tenantEnvironment(), te -> new HashSet<>())
                .add(stream.userId()));
        holders.forEach((tenantEnvironment, users) -> users.forEach(user -> {
            if (!memberships.isMember(tenantEnvironment, user)) {
                on(new MembershipRevoked(tenantEnvironment, user));
            }
        }));
    }

    void recordLag(ConversationEvent oldestWritten) {
        Duration since = Duration.between(oldestWritten.createdAt(), clock.instant());
        lag.record(since.isNegative() ? Duration.ZERO : since);
    }

    void overflowed() {
        overflows.increment();
    }

    ExecutorService executor() {
        return writers;
    }

    StreamProperties properties() {
        return properties;
    }

    ConversationEventLog log() {
        return log;
    }

    int openCount() {
        return open.size();
    }

    @Override
    public void start() {
        long silence = properties.heartbeat().toNanos();
        Duration tick = Duration.ofMillis(Math.max(10, properties.heartbeat().toMillis() / 3));
        Duration recheck = properties.membershipRecheck();
        timers = List.of(
                scheduler.scheduleWithFixedDelay(
                        () -> open.forEach(stream -> stream.heartbeatIfSilentFor(silence)),
                        scheduler.getClock().instant().plus(tick),
                        tick),
                scheduler.scheduleWithFixedDelay(
                        () -> {
                            try {
                                recheckMemberships();
                            } catch (RuntimeException databaseUnavailable) {
                                // try again next time: a failed check must not stop the schedule
                            }
                        },
                        scheduler.getClock().instant().plus(recheck),
                        recheck));
    }

    /** Closes every stream before the server stops: clients reconnect, to another replica if there is one. */
    @Override
    public void stop() {
        List<ScheduledFuture<?>> running = timers;
        timers = List.of();
        running.forEach(timer -> timer.cancel(true));
        open.forEach(BrowserStream::close);
    }

    @Override
    public boolean isRunning() {
        return !timers.isEmpty();
    }
}
