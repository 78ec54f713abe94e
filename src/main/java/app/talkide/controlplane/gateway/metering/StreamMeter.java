package app.talkide.controlplane.gateway.metering;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Meters one Messages API stream, an event at a time. {@code message_start} gives the input side,
 * the last {@code message_delta} the cumulative output. Until then (and when a stream is cut before it)
 * output is estimated from the deltas seen: text, thinking and tool-input JSON, at one token per
 * {@value #CHARS_PER_TOKEN} characters, which errs towards more rather than fewer tokens. Unknown event
 * types and block types are counted as nothing, never rejected.
 */
public final class StreamMeter {

    static final int CHARS_PER_TOKEN = 3;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final UsageCounter usage = new UsageCounter();
    private final StreamDeltaLength deltas = new StreamDeltaLength();
    private @Nullable String model;
    private long deltaChars;
    private long deltaEvents;
    private boolean started;
    private boolean stopped;
    private @Nullable String errorType;

    /** Meters one whole event (its bytes including the blank line). Returns its type, or "" if none. */
    public String accept(byte[] bytes, int offset, int length) {
        SseEvent event = SseEvent.parse(bytes, offset, length);
        if (event.data() == null) {
            return event.type();
        }
        switch (event.type()) {
            case "content_block_delta" -> {
                // Nearly every event of a stream: read the one length wanted without building a tree.
                long chars = deltas.of(event.data(), event.dataOffset(), event.dataLength());
                if (chars >= 0) {
                    deltaEvents++;
                    deltaChars += chars;
                }
                return event.type();
            }
            case "ping", "content_block_stop" -> {
                return event.type(); // nothing in them is metered
            }
            default -> {
                return accept(event);
            }
        }
    }

    private String accept(SseEvent event) {
        JsonNode data;
        try {
            data = JSON.readTree(event.data(), event.dataOffset(), event.dataLength());
        } catch (JacksonException notJson) {
            return event.type();
        }
        String type = event.type().isEmpty() ? data.path("type").asString("") : event.type();
        switch (type) {
            case "message_start" -> {
                started = true;
                JsonNode message = data.path("message");
                if (message.path("model").isString()) {
                    model = message.path("model").asString();
                }
                usage.take(message.get("usage"));
            }
            case "content_block_delta" -> {
                deltaEvents++;
                deltaChars += deltaLength(data.path("delta"));
            }
            case "content_block_start" -> deltaChars += deltaLength(data.path("content_block"));
            case "message_delta" -> {
                usage.take(data.get("usage"));
                usage.outputIsFinal();
            }
            case "message_stop" -> stopped = true;
            case "error" -> errorType = data.path("error").path("type").asString("error");
            default -> {
                // ping and event types this gateway does not know yet pass through unmetered.
            }
        }
        return type;
    }

    private static long deltaLength(JsonNode delta) {
        return switch (delta.path("type").asString("")) {
            case "text_delta", "text" -> delta.path("text").asString("").length();
            case "thinking_delta", "thinking" ->
                delta.path("thinking").asString("").length();
            case "input_json_delta" -> delta.path("partial_json").asString("").length();
            // Signatures, citations and block kinds yet to come are not output the model wrote.
            default -> 0;
        };
    }

    /** Output so far: the upstream's count once it gave one, else the estimate from the deltas. */
    public long outputSoFar() {
        long estimate = Math.max(deltaEvents, Math.ceilDiv(deltaChars, CHARS_PER_TOKEN));
        return usage.outputReported() ? usage.output() : Math.max(usage.output(), estimate);
    }

    public TokenCounts counts() {
        return usage.counts(outputSoFar());
    }

    /** {@link #counts()}, with at least {@code output} output tokens unless the upstream reported its count. */
    public TokenCounts countsAtLeast(long output) {
        return usage.outputReported() ? counts() : usage.counts(Math.max(outputSoFar(), output));
    }

    public @Nullable String model() {
        return model;
    }

    public boolean started() {
        return started;
    }

    /** Whether the stream ended properly with {@code message_stop}. */
    public boolean stopped() {
        return stopped;
    }

    /** The type of an {@code error} event the upstream sent mid-stream, if it did. */
    public @Nullable String errorType() {
        return errorType;
    }

    /**
     * The fields of one server-sent event that metering needs. The data is a slice of the event's own
     * bytes when it is one line (as every Anthropic event is), a joined copy only when it spans several.
     */
    record SseEvent(String type, byte @Nullable [] data, int dataOffset, int dataLength) {

        /** The event types a stream carries, so naming one costs no allocation. */
        private static final String[] KNOWN = {
            "content_block_delta",
            "content_block_start",
            "content_block_stop",
            "message_start",
            "message_delta",
            "message_stop",
            "ping",
            "error"
        };

        static SseEvent parse(byte[] bytes, int offset, int length) {
            String type = "";
            byte[] data = null;
            int dataOffset = 0;
            int dataLength = 0;
            java.io.ByteArrayOutputStream joined = null;
            int end = offset + length;
            int lineStart = offset;
            while (lineStart < end) {
                int lineEnd = LineBreaks.next(bytes, lineStart, end);
                if (lineEnd > lineStart) {
                    if (startsWith(bytes, lineStart, lineEnd, "data:")) {
                        int from = skipSpace(bytes, lineStart + 5, lineEnd);
                        if (data == null) {
                            data = bytes;
                            dataOffset = from;
                            dataLength = lineEnd - from;
                        } else {
                            if (joined == null) {
                                joined = new java.io.ByteArrayOutputStream(dataLength + lineEnd - from + 1);
                                joined.write(data, dataOffset, dataLength);
                            }
                            joined.write('\n');
                            joined.write(bytes, from, lineEnd - from);
                        }
                    } else if (startsWith(bytes, lineStart, lineEnd, "event:")) {
                        int from = skipSpace(bytes, lineStart + 6, lineEnd);
                        type = name(bytes, from, lineEnd);
                    }
                }
                lineStart = lineEnd + 1;
            }
            if (joined != null) {
                return new SseEvent(type, joined.toByteArray(), 0, joined.size());
            }
            return new SseEvent(type, data, dataOffset, dataLength);
        }

        private static String name(byte[] bytes, int from, int to) {
            for (String known : KNOWN) {
                if (known.length() == to - from && startsWith(bytes, from, to, known)) {
                    return known;
                }
            }
            return new String(bytes, from, to - from, StandardCharsets.UTF_8);
        }

        private static boolean startsWith(byte[] bytes, int from, int to, String prefix) {
            if (to - from < prefix.length()) {
                return false;
            }
            for (int i = 0; i < prefix.length(); i++) {
                if (bytes[from + i] != prefix.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        private static int skipSpace(byte[] bytes, int from, int to) {
            return from < to && bytes[from] == ' ' ? from + 1 : from;
        }
    }
}
