package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.ConversationEvent;
import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Instant;

/** An event as the browser API sends it: {@code data} is the event's JSON object, not a string. */
record EventView(long seq, String type, @JsonRawValue String data, Instant createdAt) {
    static EventView of(ConversationEvent event) {
        return new EventView(event.seq(), event.type(), event.data(), event.createdAt());
    }
}
