package app.talkide.controlplane.conversation.eventlog;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the conversation event log writes and fans out.
 *
 * @param maxBatchEvents the most events one group-commit transaction writes (appends waiting while a
 *     transaction runs are written together in the next one, up to this many events)
 * @param ringSize how many recent events each conversation with subscribers on this replica keeps in
 *     memory; subscribers read from it instead of the database, and one that falls further behind is
 *     disconnected to resume from the log
 * @param listenReconnectBackoff wait before reopening the PostgreSQL LISTEN connection after it failed
 * @param listenPoll how long the LISTEN connection waits for a notification before checking it is alive
 * @param fanOutInterval the shortest time between two wake-ups of a conversation's subscribers: events
 *     committed sooner after a wake-up wait for the next one and go out together, so that at a thousand
 *     events a second a subscriber writes and flushes a few events at a time, not each one alone. A
 *     quiet conversation's event goes out at once.
 * @param fanOutWakeupsPerSecond how many subscriber wake-ups (each a write and a flush) one busy
 *     conversation may cause per second: with more subscribers than this allows at the fan-out interval,
 *     the interval grows (1,000 subscribers at 100,000/s: 10 ms), so a large audience costs the server a
 *     bounded number of writes however fast events come
 */
@Validated
@ConfigurationProperties("talkide.conversations.log")
public record EventLogProperties(
        @Min(1) @DefaultValue("500") int maxBatchEvents,
        @Min(16) @DefaultValue("1024") int ringSize,
        @NotNull @DefaultValue("1s") Duration listenReconnectBackoff,
        @NotNull @DefaultValue("10s") Duration listenPoll,
        @NotNull @DefaultValue("2ms") Duration fanOutInterval,
        @Min(1) @DefaultValue("100000") int fanOutWakeupsPerSecond) {}
