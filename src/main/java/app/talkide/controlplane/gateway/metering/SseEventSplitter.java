package app.talkide.controlplane.gateway.metering;

import java.util.Arrays;

/**
 * Cuts a byte stream of server-sent events into whole events (each with its blank-line terminator), as
 * the bytes arrive in arbitrary chunks. Only the unfinished tail of the current event is kept; an event
 * longer than {@code maxEventBytes} is passed on in pieces, unmetered, so memory stays bounded whatever
 * the upstream sends.
 */
public final class SseEventSplitter {

    /** Receives a whole event ({@code complete}) or a piece of an oversized one. */
    @FunctionalInterface
    public interface Sink {
        void accept(byte[] bytes, int offset, int length, boolean complete) throws java.io.IOException;
    }

    private final int maxEventBytes;
    private byte[] pending = new byte[0];
    private int pendingLength;
    private boolean oversized;
    /** The last bytes seen, so a terminator split across chunks is still recognised. */
    private int last1 = -1;

    private int last2 = -1;
    private int last3 = -1;

    public SseEventSplitter(int maxEventBytes) {
        this.maxEventBytes = maxEventBytes;
    }

    public void feed(byte[] chunk, int offset, int length, Sink sink) throws java.io.IOException {
        int eventStart = offset;
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            int b = chunk[i];
            if (b != '\n' && b != '\r') {
                // Most bytes: skip the rest of the line at once. A terminator needs line breaks right
                // before it, so after any other byte the history is just "not a line break".
                i = LineBreaks.next(chunk, i + 1, end) - 1;
                last1 = 0;
                last2 = last3 = -1;
                continue;
            }
            boolean terminator = (b == '\n' && (last1 == '\n' || (last1 == '\r' && last2 == '\n' && last3 == '\r')))
                    || (b == '\r' && last1 == '\r');
            last3 = last2;
            last2 = last1;
            last1 = b;
            if (terminator) {
                emit(chunk, eventStart, i + 1 - eventStart, sink);
                eventStart = i + 1;
                last1 = last2 = last3 = -1;
            }
        }
        if (eventStart < end) {
            hold(chunk, eventStart, end - eventStart, sink);
        }
    }

    /** Passes on whatever is left of an unterminated last event, at the end of the stream. */
    public void finish(Sink sink) throws java.io.IOException {
        if (pendingLength > 0) {
            sink.accept(pending, 0, pendingLength, false);
            pendingLength = 0;
        }
    }

    private void emit(byte[] chunk, int start, int length, Sink sink) throws java.io.IOException {
        if (oversized) {
            sink.accept(chunk, start, length, false);
            oversized = false;
        } else if (pendingLength == 0) {
            sink.accept(chunk, start, length, true);
        } else {
            append(chunk, start, length);
            sink.accept(pending, 0, pendingLength, true);
            pendingLength = 0;
        }
    }

    private void hold(byte[] chunk, int start, int length, Sink sink) throws java.io.IOException {
        if (oversized || pendingLength + length > maxEventBytes) {
            // Too long to meter: pass it on as it comes rather than grow without bound.
            if (pendingLength > 0) {
                sink.accept(pending, 0, pendingLength, false);
                pendingLength = 0;
            }
            sink.accept(chunk, start, length, false);
            oversized = true;
            return;
        }
        append(chunk, start, length);
    }

    private void append(byte[] chunk, int start, int length) {
        if (pendingLength + length > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pendingLength + length, Math.max(256, pending.length * 2)));
        }
        System.arraycopy(chunk, start, pending, pendingLength, length);
        pendingLength += length;
    }
}
