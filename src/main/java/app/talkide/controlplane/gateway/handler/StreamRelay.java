package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.metering.SseEventSplitter;
import app.talkide.controlplane.gateway.metering.StreamMeter;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Relays a server-sent event stream from the upstream to the worker: each event is metered and
 * written the moment its last byte arrives, and everything one upstream read brought is flushed in one
 * go before the next read, so the worker never waits for the next event and events that arrived
 * together cost one flush, not one each. Only
 * the unfinished tail of the current event is held. After each event the {@link OutputAllowance} is
 * asked whether the budget still covers the output; if not, the relay stops there. The final
 * {@code message_stop} waits for {@link FinalBytes} (the call's durable settlement), then goes out in one
 * write with the end of the response: the worker's answer is complete then, whenever the upstream closes
 * its own (it is still read to its end, so its connection can serve the next call, but nothing after
 * {@code message_stop}, the protocol's last event, is passed on; an end that does not come within
 * {@link #DRAIN_GRACE} is not waited for).
 */
final class StreamRelay implements SseEventSplitter.Sink {

    /** An event longer than this is forwarded in pieces, unmetered (no real event comes near it). */
    private static final int MAX_EVENT_BYTES = 1 << 20;

    /**
     * How long the upstream may take to end its body after {@code message_stop} (the API ends it in the same
     * write) before it is cut off: past that its connection is not worth keeping for another call.
     */
    static final Duration DRAIN_GRACE = Duration.ofSeconds(2);

    enum End {
        COMPLETED,
        CLIENT_GONE,
        UPSTREAM_BROKEN,
        LIMIT_REACHED,
        /** The budget could not be asked for more (its database failed): stopped like a reached limit. */
        BUDGET_UNAVAILABLE,
        /** The usage could not be made durable before {@code message_stop}: the stop was not sent. */
        SETTLEMENT_FAILED
    }

    /** Runs once before the stream's final event ({@code message_stop}) is written; false: do not write it. */
    @FunctionalInterface
    interface FinalBytes {
        boolean commit();
    }

    private final ClientOutput client;
    private final StreamMeter meter;
    private final OutputAllowance allowance;
    private final StallWatchdog.Watched watched;
    private final FinalBytes beforeStop;
    private final SseEventSplitter splitter = new SseEventSplitter(MAX_EVENT_BYTES);
    private final byte[] buffer = new byte[16 * 1024];
    // Whole events of the current read, passed on as one write: [runStart, runEnd) of the read buffer.
    private int runStart;
    private int runEnd;
    private boolean limitReached;
    private boolean stopCommitted;
    /** message_stop and the end of the response went out: the rest of the upstream is only drained. */
    private boolean ended;

    private boolean settlementFailed;

    StreamRelay(
            ClientOutput client,
            StreamMeter meter,
            OutputAllowance allowance,
            StallWatchdog.Watched watched,
            FinalBytes beforeStop) {
        this.client = client;
        this.meter = meter;
        this.allowance = allowance;
        this.watched = watched;
        this.beforeStop = beforeStop;
    }

    End relay(InputStream upstream) {
        try {
            while (true) {
                int read;
                try {
                    read = upstream.read(buffer);
                } catch (IOException broken) {
                    // After message_stop only the drain broke (or was cut off): the answer is complete.
                    return ended ? End.COMPLETED : End.UPSTREAM_BROKEN;
                }
                watched.touched();
                if (read < 0) {
                    splitter.finish(this);
                    flush();
                    return End.COMPLETED;
                }
                runStart = runEnd = 0;
                splitter.feed(buffer, 0, read, this);
                // One write and one flush for every event of this read, before the next read can block.
                flush();
                if (settlementFailed) {
                    return End.SETTLEMENT_FAILED;
                }
                if (limitReached) {
                    return allowance.budgetUnavailable() ? End.BUDGET_UNAVAILABLE : End.LIMIT_REACHED;
                }
            }
        } catch (IOException clientGone) {
            return End.CLIENT_GONE;
        }
    }

    @Override
    public void accept(byte[] bytes, int offset, int length, boolean complete) throws ClientGone {
        if (limitReached || settlementFailed || ended) {
            return;
        }
        if (complete) {
            meter.accept(bytes, offset, length);
            if (meter.stopped() && !stopCommitted) {
                // The worker takes message_stop as "done": its usage must be durable before it sees it.
                stopCommitted = true;
                flush(); // what came before the stop need not wait for the commit
                if (!beforeStop.commit()) {
                    settlementFailed = true;
                    return;
                }
                ended = true;
                client.end(bytes, offset, length);
                watched.answered(DRAIN_GRACE);
                return;
            }
        }
        pass(bytes, offset, length);
        if (complete && !allowance.allows(meter)) {
            limitReached = true;
        }
    }

    /**
     * Events that lie next to each other in the read buffer are written together when the read's flush
     * comes. Anything else (an event joined from several reads, held by the splitter in an array it
     * reuses) is written at once.
     */
    private void pass(byte[] bytes, int offset, int length) throws ClientGone {
        if (bytes == buffer && offset == runEnd) {
            runEnd += length;
            return;
        }
        writeRun();
        if (bytes == buffer) {
            runStart = offset;
            runEnd = offset + length;
        } else {
            client.write(bytes, offset, length);
        }
    }

    private void writeRun() throws ClientGone {
        if (runEnd > runStart) {
            client.write(buffer, runStart, runEnd - runStart);
        }
        runStart = runEnd;
    }

    private void flush() throws ClientGone {
        writeRun();
        client.flush();
    }
}
