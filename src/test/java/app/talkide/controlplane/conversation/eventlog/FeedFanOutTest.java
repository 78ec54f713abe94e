package app.talkide.controlplane.conversation.eventlog;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/** How a feed shares its events with many subscribers: one encoding per event, wake-ups spaced out. */
class FeedFanOutTest {

    static final UUID CONVERSATION = UUID.randomUUID();
    static final long HOUR = Duration.ofHours(1).toNanos();

    final RecordingAnnouncer announcer = new RecordingAnnouncer();

    @Test
    void eachEventIsEncodedOnceAndTheBytesAreSharedByEverySubscriber() {
        Feed feed = feed(0, 1_000_000);
        feed.offer(events(1, 3));
        AtomicInteger encodings = new AtomicInteger();

        Feed.Slice first = feed.after(0, 10, event -> {
            encodings.incrementAndGet();
            return ("id: " + event.seq() + "\n\n").getBytes(StandardCharsets.UTF_8);
        });
        Feed.Slice second = feed.after(1, 10, event -> {
            throw new AssertionError("encoded twice: " + event.seq());
        });

        assertThat(encodings).hasValue(3);
        assertThat(first.events()).extracting(ConversationEvent::seq).containsExactly(1L, 2L, 3L);
        assertThat(second.encoded())
                .containsExactly(first.encoded().get(1), first.encoded().get(2));
        assertThat(first.encoded())
                .extracting(bytes -> new String(bytes, StandardCharsets.UTF_8))
                .containsExactly("id: 1\n\n", "id: 2\n\n", "id: 3\n\n");
    }

    @Test
    void eventsCommittedSoonAfterAWakeUpWaitForTheNextOneAndGoOutTogether() {
        Feed feed = feed(HOUR, 1_000_000);
        List<Long> woken = subscribe(feed);

        feed.offer(events(1, 1));
        feed.offer(events(2, 2));
        feed.offer(events(3, 3));

        // the first goes out at once; the next two wait for one wake-up, scheduled once
        assertThat(woken).containsExactly(1L);
        assertThat(announcer.tasks).hasSize(1);
        assertThat(announcer.delays.getFirst()).isPositive().isLessThanOrEqualTo(HOUR);
        announcer.tasks.getFirst().run();
        assertThat(woken).containsExactly(1L, 3L);
    }

    @Test
    void aLargeAudienceIsWokenByTheAnnouncerNotByTheThreadThatCommitted() {
        // one wake-up a second per conversation: two subscribers make the interval 2 s, above the base
        Feed feed = feed(Duration.ofMillis(2).toNanos(), 1);
        List<Long> woken = subscribe(feed);
        subscribe(feed);

        feed.offer(events(1, 2));

        assertThat(woken).isEmpty();
        assertThat(announcer.delays).containsExactly(0L);
        announcer.tasks.getFirst().run();
        assertThat(woken).containsExactly(2L);
    }

    @Test
    @Timeout(30)
    void aGapInWhatTheLogReturnsIsAFoldedRangeTheFeedStepsOverInsteadOfReadingAgainForever() {
        // Compaction deleted 3 and 4; the log has the last word, so a gap there is final.
        List<ConversationEvent> log = new ArrayList<>(events(1, 2));
        log.addAll(events(5, 6));
        EventLogRepository repository = new EventLogRepository(null, null) {
            @Override
            List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit) {
                return log.stream().filter(e -> e.seq() > afterSeq).limit(limit).toList();
            }
        };
        Feed feed = new Feed(CONVERSATION, 0, 16, repository, Runnable::run, announcer, HOUR, 1_000_000);

        feed.refresh();

        assertThat(feed.head()).isEqualTo(6);
        assertThat(feed.after(4, 10, event -> new byte[0]).events())
                .extracting(ConversationEvent::seq)
                .containsExactly(5L, 6L);
        assertThat(feed.after(2, 10, event -> new byte[0]))
                .as("a subscriber before the gap reads the log")
                .isNull();
    }

    private Feed feed(long intervalNanos, int wakeupsPerSecond) {
        // no gaps in these tests, so the feed never reads the log
        return new Feed(CONVERSATION, 0, 16, null, Runnable::run, announcer, intervalNanos, wakeupsPerSecond);
    }

    private static List<Long> subscribe(Feed feed) {
        List<Long> woken = new ArrayList<>();
        feed.subscribers.add(woken::add);
        return woken;
    }

    private static List<ConversationEvent> events(long from, long to) {
        return LongStream.rangeClosed(from, to)
                .mapToObj(seq -> new ConversationEvent(CONVERSATION, seq, "text.delta", "{}", null, Instant.EPOCH))
                .toList();
    }

    /** Keeps what the feed schedules, to run it when the test says; its clock stands still. */
    static final class RecordingAnnouncer extends ThreadPoolTaskScheduler {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        RecordingAnnouncer() {
            setClock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, Instant startTime) {
            tasks.add(command);
            delays.add(Duration.between(getClock().instant(), startTime).toNanos());
            return null;
        }
    }
}
