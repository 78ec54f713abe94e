package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.gateway.metering.SseEventSplitter;
import app.talkide.controlplane.gateway.metering.StreamMeter;
import java.io.IOException;
import java.io.InputStream;

/**
 * Relays a server-sent event stream from the upstream to the worker: each event is metered and
 * written and flushed the moment its last byte arrives, so the worker never waits for the next one. Only
 * the unfinished tail of the current event is held. After each event the {@link OutputAllowance} is
 * asked whether the budget still covers the output; if not, the relay stops there.
 */
final class StreamRelay implements SseEventSplitter.Sink {

    /** An event longer than this is forwarded in pieces, unmetered (no real event comes near it). */
    private static final int MAX_EVENT_BYTES = 1 << 20;

    enum End {
        COMPLETED,
        CLIENT_GONE,
        UPSTREAM_BROKEN,
        LIMIT_REACHED,
        /** The budget could not be asked for more (its database failed): stopped like a reached limit. */
        BUDGET_UNAVAILABLE
    }

    private final ClientOutput client;
    private final StreamMeter meter;
    private final OutputAllowance allowance;
    private final StallWatchdog.Watched watched;
    private final SseEventSplitter splitter = new SseEventSplitter(MAX_EVENT_BYTES);
    private boolean limitReached;

    StreamRelay(ClientOutput client, StreamMeter meter, OutputAllowance allowance, StallWatchdog.Watched watched) {
        this.client = client;
        this.meter = meter;
        this.allowance = allowance;
        this.watched = watched;
    }

    End relay(InputStream upstream) {
        byte[] buffer = new byte[16 * 1024];
        try {
            while (true) {
                int read;
                try {
                    read = upstream.read(buffer);
                } catch (IOException broken) {
                    return End.UPSTREAM_BROKEN;
                }
                watched.touched();
                if (read < 0) {
                    splitter.finish(this);
                    return End.COMPLETED;
                }
                splitter.feed(buffer, 0, read, this);
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
        if (limitReached) {
            return;
        }
        if (complete) {
            meter.accept(bytes, offset, length);
        }
        client.send(bytes, offset, length);
        if (complete && !allowance.allows(meter)) {
            limitReached = true;
        }
    }
}
