package app.talkide.controlplane.workercontract;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Parses a {@code text/event-stream} as the HTML living standard says (fields {@code id}, {@code event},
 * {@code data}, comments, CR/LF/CRLF line ends), with one addition a control plane needs against a worker
 * it does not fully trust: a line longer than {@link #MAX_LINE} ends the stream with an error instead of
 * growing without bound.
 */
public final class SseEventReader {

    /** A dispatched event; {@code id} is the last id seen on the stream (SSE keeps it across events). */
    public record SseEvent(@Nullable String id, String type, String data) {}

    public static final int MAX_LINE = 1 << 20;

    private final BufferedReader reader;
    private final StringBuilder line = new StringBuilder();
    private @Nullable String lastId;
    private boolean pendingCr;
    private volatile long lastLineNanos = System.nanoTime();

    public SseEventReader(InputStream in) {
        this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 16 * 1024);
    }

    /** The next event with data, or null when the stream ends. Comments and empty events are skipped. */
    public @Nullable SseEvent next() throws IOException {
        String type = null;
        StringBuilder data = null;
        String text;
        while ((text = readLine()) != null) {
            if (text.isEmpty()) {
                if (data != null) {
                    return new SseEvent(lastId, type == null || type.isEmpty() ? "message" : type, data.toString());
                }
                type = null;
                continue;
            }
            if (text.charAt(0) == ':') {
                continue;
            }
            int colon = text.indexOf(':');
            String field = colon < 0 ? text : text.substring(0, colon);
            String value = colon < 0 ? "" : text.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "event" -> type = value;
                case "data" -> {
                    if (data == null) {
                        data = new StringBuilder(value);
                    } else {
                        data.append('\n').append(value);
                        if (data.length() > MAX_LINE) {
                            throw new IOException("event data longer than " + MAX_LINE + " characters");
                        }
                    }
                }
                case "id" -> {
                    if (value.indexOf('\0') < 0) {
                        lastId = value;
                    }
                }
                default -> {
                    // "retry" and unknown fields: the client's own backoff decides when to reconnect
                }
            }
        }
        return null;
    }

    /** Nanos ({@link System#nanoTime()}) when the last line, comments and heartbeats included, arrived. */
    public long lastLineNanos() {
        return lastLineNanos;
    }

    private @Nullable String readLine() throws IOException {
        line.setLength(0);
        int c;
        while ((c = reader.read()) >= 0) {
            if (pendingCr) {
                pendingCr = false;
                if (c == '\n') {
                    continue;
                }
            }
            if (c == '\r' || c == '\n') {
                pendingCr = c == '\r';
                lastLineNanos = System.nanoTime();
                return line.toString();
            }
            if (line.length() >= MAX_LINE) {
                throw new IOException("line longer than " + MAX_LINE + " characters");
            }
            line.append((char) c);
        }
        return null; // an unterminated last line is not a complete event, per the standard
    }
}
