package app.talkide.controlplane.gateway.metering;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * {@link DeltaLength} as Jackson's streaming parser reads it: the oracle the hand-written scanner is
 * checked against, on the same inputs, in {@code DeltaLengthProperties}.
 */
final class JacksonDeltaLength {

    private static final JsonFactory FACTORY = new JsonFactory();

    private JacksonDeltaLength() {}

    /** The delta's length, or -1 if {@code data} is not one JSON object (such an event is not metered). */
    static long of(byte[] data, int offset, int length) {
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), data, offset, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return -1;
            }
            long chars = 0;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                boolean delta = "delta".equals(parser.currentName());
                JsonToken value = parser.nextToken();
                if (delta && value == JsonToken.START_OBJECT) {
                    chars = ofDelta(parser);
                } else {
                    parser.skipChildren();
                    if (delta) {
                        chars = 0;
                    }
                }
            }
            // Trailing tokens: not one JSON value, as a tree read would say.
            return parser.nextToken() == null ? chars : -1;
        } catch (JacksonException notJson) {
            return -1;
        }
    }

    private static long ofDelta(JsonParser parser) {
        String type = "";
        long text = 0;
        long thinking = 0;
        long partialJson = 0;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            if (parser.nextToken() != JsonToken.VALUE_STRING) {
                parser.skipChildren();
                continue;
            }
            switch (name) {
                case "type" -> type = parser.getString();
                case "text" -> text = parser.getStringLength();
                case "thinking" -> thinking = parser.getStringLength();
                case "partial_json" -> partialJson = parser.getStringLength();
                default -> {
                    // signature, citation and fields yet to come are not output the model wrote
                }
            }
        }
        return switch (type) {
            case "text_delta", "text" -> text;
            case "thinking_delta", "thinking" -> thinking;
            case "input_json_delta" -> partialJson;
            default -> 0;
        };
    }
}
