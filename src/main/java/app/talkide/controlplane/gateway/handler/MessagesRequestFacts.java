package app.talkide.controlplane.gateway.handler;

import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the gateway needs to know of a Messages API request before forwarding it: the model, whether it
 * streams, {@code max_tokens}, and an estimate of its input tokens. Parsed with a streaming parser in
 * one pass; the body itself is forwarded untouched.
 *
 * <p>The estimate is one token per {@value #BYTES_PER_TOKEN} bytes of JSON, except that a long base64
 * {@code data} string (an image or document) counts as {@value #TOKENS_PER_ATTACHMENT} tokens rather than
 * its length. It only sizes the first reservation: the upstream's {@code message_start} gives the truth
 * and the reservation follows it.
 */
record MessagesRequestFacts(
        String model, boolean stream, long maxTokens, long estimatedInputTokens, long thinkingBudget) {

    /**
     * Server tools the upstream runs and bills beyond tokens (per search, per container hour); the
     * gateway prices none of them, so a call naming one is refused rather than let past the budget.
     */
    static final List<String> UNPRICED_SERVER_TOOLS = List.of("web_search_", "web_fetch_", "code_execution_");

    static final int BYTES_PER_TOKEN = 4;
    static final int TOKENS_PER_ATTACHMENT = 1_600;
    private static final int ATTACHMENT_MIN_LENGTH = 1_024;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    static MessagesRequestFacts parse(byte[] body) throws GatewayError {
        String model = "";
        boolean stream = false;
        long maxTokens = 0;
        long thinkingBudget = 0;
        long attachmentBytes = 0;
        long attachments = 0;
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw notAnObject();
            }
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                int depth = parser.streamReadContext().getNestingDepth();
                if (depth == 0) {
                    if (token != JsonToken.END_OBJECT || parser.nextToken() != null) {
                        throw notAnObject();
                    }
                    break;
                }
                if (token == JsonToken.PROPERTY_NAME && depth == 1 && "max_tokens".equals(parser.currentName())) {
                    // Sizes the reservation, so it must be what the upstream reads it as: a plain integer.
                    if (parser.nextToken() != JsonToken.VALUE_NUMBER_INT
                            || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        throw new GatewayError(400, "invalid_request_error", "max_tokens: must be an integer.");
                    }
                    maxTokens = Math.max(0, parser.getLongValue());
                    continue;
                }
                if (!token.isScalarValue()) {
                    continue;
                }
                String name = parser.currentName();
                if (depth == 3 && "type".equals(name) && token == JsonToken.VALUE_STRING && inTools(parser)) {
                    String type = parser.getString();
                    if (UNPRICED_SERVER_TOOLS.stream().anyMatch(type::startsWith)) {
                        throw new GatewayError(
                                400,
                                "invalid_request_error",
                                "tools: the server tool " + type + " is billed beyond tokens, which this gateway"
                                        + " does not price yet, so it is not available.");
                    }
                } else if (depth == 2
                        && "budget_tokens".equals(name)
                        && token == JsonToken.VALUE_NUMBER_INT
                        && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                        && "thinking"
                                .equals(parser.streamReadContext().getParent().currentName())) {
                    thinkingBudget = Math.max(0, parser.getLongValue());
                } else if (depth == 1 && "model".equals(name) && token == JsonToken.VALUE_STRING) {
                    model = parser.getString();
                } else if (depth == 1 && "stream".equals(name)) {
                    stream = token == JsonToken.VALUE_TRUE;
                } else if ("data".equals(name) && token == JsonToken.VALUE_STRING) {
                    int length = parser.getStringLength();
                    if (length >= ATTACHMENT_MIN_LENGTH) {
                        attachmentBytes += length;
                        attachments++;
                    }
                }
            }
        } catch (JacksonException e) {
            throw new GatewayError(400, "invalid_request_error", "The request body is not valid JSON.");
        }
        long estimate =
                Math.ceilDiv(body.length - attachmentBytes, BYTES_PER_TOKEN) + attachments * TOKENS_PER_ATTACHMENT;
        return new MessagesRequestFacts(model, stream, maxTokens, estimate, thinkingBudget);
    }

    /**
     * The output tokens to reserve before the call, {@code slice} being what a stream adds per extension. A
     * stream can be stopped slice by slice; a non-streaming answer comes whole, so it reserves all of it.
     * Thinking comes first and may show nothing while it runs (summarized, omitted or redacted), so a
     * stream reserves its whole thinking budget up front, with one slice of answer after it.
     */
    long firstOutputTokens(long slice) {
        long max = maxTokens > 0 ? maxTokens : slice;
        long thinking = Math.min(thinkingBudget, max);
        return stream ? (thinking > max - slice ? max : thinking + slice) : max;
    }

    /** Whether the parser is in an object of the top-level {@code tools} array. */
    private static boolean inTools(JsonParser parser) {
        TokenStreamContext array = parser.streamReadContext().getParent();
        return array != null
                && array.inArray()
                && array.getParent() != null
                && "tools".equals(array.getParent().currentName());
    }

    private static GatewayError notAnObject() {
        return new GatewayError(400, "invalid_request_error", "The request body must be one JSON object.");
    }
}
