package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** The text/event-stream wire format: {@code id} is the sequence number, {@code event} the type. */
final class SseFormat {

    static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.UTF_8);

    private SseFormat() {}

    static byte[] retry(Duration retry) {
        return ("retry: " + retry.toMillis() + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] events(List<ConversationEvent> events) {
        StringBuilder out = new StringBuilder(events.size() * 128);
        for (ConversationEvent event : events) {
            out.append("id: ").append(event.seq()).append('\n');
            out.append("event: ").append(event.type()).append('\n');
            // A line break inside the data would end the field: every line gets its own data field.
            for (String line : event.data().split("\r\n|\r|\n", -1)) {
                out.append("data: ").append(line).append('\n');
            }
            out.append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }
}
