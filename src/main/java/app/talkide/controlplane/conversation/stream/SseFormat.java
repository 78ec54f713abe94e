package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/** The text/event-stream wire format: {@code id} is the sequence number, {@code event} the type. */
final class SseFormat {

    private static final Pattern LINE_BREAK = Pattern.compile("\r\n|\r|\n");

    static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.UTF_8);

    private SseFormat() {}

    static byte[] retry(Duration retry) {
        return ("retry: " + retry.toMillis() + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] events(List<ConversationEvent> events) {
        StringBuilder out = new StringBuilder(events.size() * 128);
        events.forEach(event -> append(out, event));
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] event(ConversationEvent event) {
        StringBuilder out = new StringBuilder(event.data().length() + 64);
        append(out, event);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void append(StringBuilder out, ConversationEvent event) {
        out.append("id: ").append(event.seq()).append('\n');
        out.append("event: ").append(event.type()).append('\n');
        String data = event.data();
        if (data.indexOf('\n') < 0 && data.indexOf('\r') < 0) {
            out.append("data: ").append(data).append('\n');
        } else {
            // A line break inside the data would end the field: every line gets its own data field.
            for (String line : LINE_BREAK.split(data, -1)) {
                out.append("data: ").append(line).append('\n');
            }
        }
        out.append('\n');
    }
}
