package app.talkide.controlplane.bench.support;

/**
 * Finds the append times in a chunked {@code text/event-stream} body as it arrives, a few bytes at a time,
 * without building a string: it undoes the HTTP/1.1 chunking and picks the digits after each
 * {@code "t":}. A harness that parsed every line of a million events a second would measure itself.
 */
public final class TimestampScanner {

    /** What to do with each append time found. */
    @FunctionalInterface
    public interface Sink {
        void timestamp(long value);
    }

    private static final byte[] KEY = {'"', 't', '"', ':'};

    private enum Chunking {
        SIZE,
        SIZE_EXTENSION,
        DATA,
        DATA_END,
        DONE
    }

    private final Sink sink;
    private Chunking chunking = Chunking.SIZE;
    private long chunkSize;
    private long remaining;
    /** How many bytes of {@link #KEY} matched; {@code KEY.length} while reading digits. */
    private int matched;

    private long value;

    public TimestampScanner(Sink sink) {
        this.sink = sink;
    }

    /** The terminating zero-size chunk arrived: the server ended the stream. */
    public boolean ended() {
        return chunking == Chunking.DONE;
    }

    public void scan(byte[] bytes, int offset, int length) {
        int at = offset;
        int end = offset + length;
        while (at < end) {
            switch (chunking) {
                case SIZE -> {
                    byte b = bytes[at++];
                    int digit = Character.digit(b, 16);
                    if (digit >= 0) {
                        chunkSize = chunkSize * 16 + digit;
                    } else if (b == '\n') {
                        startChunk();
                    } else if (b != '\r') {
                        chunking = Chunking.SIZE_EXTENSION;
                    }
                }
                case SIZE_EXTENSION -> {
                    if (bytes[at++] == '\n') {
                        startChunk();
                    }
                }
                case DATA -> {
                    int n = (int) Math.min(remaining, end - at);
                    body(bytes, at, n);
                    at += n;
                    remaining -= n;
                    if (remaining == 0) {
                        chunking = Chunking.DATA_END;
                    }
                }
                case DATA_END -> {
                    if (bytes[at++] == '\n') {
                        chunking = Chunking.SIZE;
                        chunkSize = 0;
                    }
                }
                case DONE -> at = end;
            }
        }
    }

    private void startChunk() {
        remaining = chunkSize;
        chunking = chunkSize == 0 ? Chunking.DONE : Chunking.DATA;
    }

    private void body(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            if (matched == KEY.length) {
                if (b >= '0' && b <= '9') {
                    value = value * 10 + (b - '0');
                    continue;
                }
                sink.timestamp(value);
                value = 0;
                matched = 0;
            }
            if (b == KEY[matched]) {
                matched++;
            } else {
                matched = b == KEY[0] ? 1 : 0;
            }
        }
    }
}
