package app.talkide.controlplane.gateway.metering;

import java.util.Arrays;

/**
 * Cuts a byte stream of server-sent events into whole events (each with its blank-line terminator), as
 * the bytes arrive in arbitrary chunks. Only the unfinished tail of the current event is kept; an event
 * longer than {@code maxEventBytes} is passed on in pieces, unmetered, so memory stays bounded whatever
 * the upstream sends. Lines may end in CR, LF or CRLF, mixed within one event, as the SSE spec allows;
 * an event whose blank line ends in a CR that is the last byte of a read waits for the next byte (or the
 * end of the stream), since an LF may follow that belongs to it.
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
    /** Line endings since the last other byte (a CRLF counts once): the second ends the event. */
    private int lineEnds;
    /** The last byte was a CR, so an LF now is the rest of that CRLF, not a line ending of its own. */
    private boolean afterCr;
    /**
     * The held bytes are a whole event whose blank line ended in a CR at the end of a read: the next byte
     * says whether it was CRLF (that LF is the event's last byte) or a lone CR.
     */
    private boolean endedAtCr;

    public SseEventSplitter(int maxEventBytes) {
        this.maxEventBytes = maxEventBytes;
    }

    public void feed(byte[] chunk, int offset, int length, Sink sink) throws java.io.IOException {
        int eventStart = offset;
        int end = offset + length;
        int i = offset;
        if (endedAtCr && length > 0) {
            endedAtCr = false;
            if (chunk[offset] == '\n') {
                afterCr = false;
                i = eventStart = offset + 1;
                emit(chunk, offset, 1, sink);
            } else {
                emitHeld(sink);
            }
        }
        for (; i < end; i++) {
            int b = chunk[i];
            if (b != '\n' && b != '\r') {
                // Most bytes: skip the rest of the line at once.
                i = LineBreaks.next(chunk, i + 1, end) - 1;
                lineEnds = 0;
                afterCr = false;
                continue;
            }
            if (b == '\n' && afterCr) {
                afterCr = false;
                continue;
            }
            afterCr = b == '\r';
            if (++lineEnds < 2) {
                continue;
            }
            lineEnds = 0;
            if (b == '\r') {
                if (i + 1 == end) {
                    endedAtCr = true; // whether an LF follows is for the next read to say
                    break;
                }
                if (chunk[i + 1] == '\n') {
                    afterCr = false;
                    i++;
                }
            }
            emit(chunk, eventStart, i + 1 - eventStart, sink);
            eventStart = i + 1;
        }
        if (eventStart < end) {
            hold(chunk, eventStart, end - eventStart, sink);
        }
    }

    /** Passes on whatever is left of an unterminated last event, at the end of the stream. */
    public void finish(Sink sink) throws java.io.IOException {
        if (endedAtCr) {
            endedAtCr = false;
            emitHeld(sink);
        } else if (pendingLength > 0) {
            sink.accept(pending, 0, pendingLength, false);
            pendingLength = 0;
        }
    }

    /** The held bytes end a whole event (an oversized one was passed on as it came). */
    private void emitHeld(Sink sink) throws java.io.IOException {
        if (oversized) {
            oversized = false;
        } else {
            sink.accept(pending, 0, pendingLength, true);
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
