package app.talkide.controlplane.local.referenceworker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/** Reads the Messages API's server-sent events ({@code event:} + {@code data:} JSON) one at a time. */
final class AnthropicStreamReader {

    record StreamEvent(String name, JsonNode data) {}

    private final BufferedReader reader;

    AnthropicStreamReader(InputStream in) {
        this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** The next event, or null at the end of the stream. */
    @Nullable
    StreamEvent next() throws IOException {
        String name = null;
        StringBuilder data = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data.length() > 0) {
                    JsonNode json = HttpExchanges.JSON.readTree(data.toString());
                    return new StreamEvent(
                            name != null ? name : json.path("type").asString(""), json);
                }
                name = null;
            } else if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                if (data.length() > 0) {
                    data.append('\n');
                }
                data.append(line.substring(5).stripLeading());
            }
        }
        return null;
    }
}
