package app.talkide.controlplane.gateway.metering;

import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.async.ByteArrayFeeder;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads {@code model} and {@code usage} from a non-streaming Messages API response as its bytes pass,
 * with Jackson's non-blocking parser: nothing of the body is kept but the few numbers wanted. A body
 * that is not JSON simply yields no usage.
 */
public final class JsonUsageScanner {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JsonParser parser = FACTORY.createNonBlockingByteArrayParser(ObjectReadContext.empty());
    private final ObjectNode usage = JSON.createObjectNode();
    private final UsageCounter counter = new UsageCounter();
    private @Nullable String model;
    private boolean broken;
    private boolean sawUsage;

    public void feed(byte[] bytes, int offset, int length) {
        if (broken) {
            return;
        }
        try {
            ((ByteArrayFeeder) parser).feedInput(bytes, offset, offset + length); // start and end offsets, not a length
            drain();
        } catch (JacksonException notJson) {
            broken = true;
        }
    }

    private void drain() {
        JsonToken token;
        while ((token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
            if (!token.isScalarValue()) {
                continue;
            }
            int depth = parser.streamReadContext().getNestingDepth();
            String name = parser.currentName();
            String parent = parser.streamReadContext().getParent() == null
                    ? null
                    : parser.streamReadContext().getParent().currentName();
            if (depth == 1 && "model".equals(name) && token == JsonToken.VALUE_STRING) {
                model = parser.getString();
            } else if (depth == 2 && "usage".equals(parent) && token.isNumeric()) {
                usage.put(name, parser.getLongValue());
                sawUsage = true;
            } else if (depth == 3 && "cache_creation".equals(parent) && token.isNumeric() && inUsage()) {
                ObjectNode creation = usage.has("cache_creation")
                        ? (ObjectNode) usage.get("cache_creation")
                        : usage.putObject("cache_creation");
                creation.put(name, parser.getLongValue());
            }
        }
    }

    private boolean inUsage() {
        var grandParent = parser.streamReadContext().getParent().getParent();
        return grandParent != null && "usage".equals(grandParent.currentName());
    }

    public TokenCounts counts() {
        counter.take(usage);
        return counter.counts();
    }

    public boolean sawUsage() {
        return sawUsage;
    }

    public @Nullable String model() {
        return model;
    }
}
