package app.talkide.controlplane.gateway.metering;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.async.ByteArrayFeeder;
import tools.jackson.core.json.JsonFactory;

/**
 * The characters of output each {@code content_block_delta} of one stream carries: the decoded length
 * (UTF-16 units) of {@code text}, {@code thinking} or {@code partial_json}, chosen by the delta's {@code
 * type}, the last of a repeated key winning; anything else is 0. Nearly every event of a stream is one of
 * these, so one Jackson non-blocking parser lives as long as the stream: each event's data is fed as one
 * more root-level value, and no parser or tree is built per event (a parser per event cost a sixth of the
 * gateway's CPU; a hand-written cursor measured no faster than this, see performance.md). Data that is not
 * one JSON object yields -1, and the parser is replaced, so one broken event cannot spoil the next.
 * {@code DeltaLengthProperties} holds it to Jackson's tree-free reading of each event on its own.
 */
final class StreamDeltaLength {

    private static final JsonFactory FACTORY = new JsonFactory();
    private JsonParser parser = newParser();
    /** Bytes fed to the current parser, so its byte offsets can be read within one event. */
    private long fed;

    /** The delta's length, or -1 if {@code data} is not one JSON object (such an event is not metered). */
    long of(byte[] data, int offset, int length) {
        try {
            long chars = read(data, offset, length);
            if (chars >= 0) {
                return chars;
            }
        } catch (JacksonException notJson) {
            // falls through: this event is not metered, and the parser starts afresh
        }
        parser.close();
        parser = newParser();
        fed = 0;
        return -1;
    }

    private long read(byte[] data, int offset, int length) {
        long start = fed;
        feed(data, offset, length);
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return -1;
        }
        long chars = 0;
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            boolean delta = "delta".equals(parser.currentName());
            JsonToken value = parser.nextToken();
            if (delta && value == JsonToken.START_OBJECT) {
                chars = ofDelta();
                if (chars < 0) {
                    return -1;
                }
            } else {
                if (!skip(value)) {
                    return -1;
                }
                if (delta) {
                    chars = 0;
                }
            }
        }
        if (token != JsonToken.END_OBJECT || !onlyWhiteSpaceAfter(data, offset, length, start)) {
            return -1;
        }
        return parser.nextToken() == JsonToken.NOT_AVAILABLE ? chars : -1;
    }

    /**
     * Whether nothing but JSON white space follows the object in this event. Asking the parser for one more
     * token cannot tell: an unterminated string after the object ({@code {}"}) only waits for more input,
     * and the next event's data would then be read inside it.
     */
    private boolean onlyWhiteSpaceAfter(byte[] data, int offset, int length, long start) {
        long end = parser.currentLocation().getByteOffset() - start; // just past the object's '}'
        for (int i = offset + (int) end; i < offset + length; i++) {
            byte b = data[i];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private long ofDelta() {
        int field = -1;
        long text = 0;
        long thinking = 0;
        long partialJson = 0;
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value != JsonToken.VALUE_STRING) {
                if (!skip(value)) {
                    return -1;
                }
                continue;
            }
            switch (name) {
                case "type" ->
                    field = switch (parser.getString()) {
                        case "text_delta", "text" -> 0;
                        case "thinking_delta", "thinking" -> 1;
                        case "input_json_delta" -> 2;
                        default -> -1;
                    };
                case "text" -> text = parser.getStringLength();
                case "thinking" -> thinking = parser.getStringLength();
                case "partial_json" -> partialJson = parser.getStringLength();
                default -> {
                    // signature, citation and fields yet to come are not output the model wrote
                }
            }
        }
        if (token != JsonToken.END_OBJECT) {
            return -1;
        }
        return switch (field) {
            case 0 -> text;
            case 1 -> thinking;
            case 2 -> partialJson;
            default -> 0;
        };
    }

    /** Skips the value that starts with {@code token}; false if the data ended inside it. */
    private boolean skip(JsonToken token) {
        if (token == null || token == JsonToken.NOT_AVAILABLE) {
            return false;
        }
        if (!token.isStructStart()) {
            return true;
        }
        int depth = 1;
        while (depth > 0) {
            JsonToken next = parser.nextToken();
            if (next == null || next == JsonToken.NOT_AVAILABLE) {
                return false;
            }
            if (next.isStructStart()) {
                depth++;
            } else if (next.isStructEnd()) {
                depth--;
            }
        }
        return true;
    }

    private void feed(byte[] data, int offset, int length) {
        ((ByteArrayFeeder) parser).feedInput(data, offset, offset + length); // start and end offsets
        fed += length;
    }

    private static JsonParser newParser() {
        return FACTORY.createNonBlockingByteArrayParser(ObjectReadContext.empty());
    }
}
