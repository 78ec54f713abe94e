package app.talkide.controlplane.conversation.stream;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationAccess;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/conversations/{id}/stream}: every event after the client's last id (the
 * {@code Last-Event-ID} header a reconnecting browser sends, or {@code ?lastEventId=} on the first
 * connect; from the beginning without either), then the live events, as Server-Sent Events.
 */
@RestController
class ConversationStreamController {

    private final ConversationAccess access;
    private final BrowserStreams streams;

    ConversationStreamController(ConversationAccess access, BrowserStreams streams) {
        this.access = access;
        this.streams = streams;
    }

    @GetMapping("/api/conversations/{id}/stream")
    void stream(
            @PathVariable UUID id,
            @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventIdHeader,
            @RequestParam(name = "lastEventId", required = false) @Nullable String lastEventIdParam,
            Principal principal,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        Conversation conversation = access.readableBy(id, principal.getName());
        long after = sequence(lastEventIdHeader != null ? lastEventIdHeader : lastEventIdParam);
        if (after > 0 && streams.log().readAfter(id, after - 1, 1).isEmpty()) {
            // An id this log never wrote (it was reset, or the id comes from elsewhere): resuming after it
            // would hide every event up to it, so start from the beginning as for any id that is not ours.
            after = 0;
        }
        streams.open(id, conversation.tenantEnvironment(), principal.getName(), after, request, response);
    }

    /** Ids are the sequence numbers this stream wrote; anything else starts from the beginning. */
    private static long sequence(@Nullable String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(lastEventId.trim()));
        } catch (NumberFormatException notOurs) {
            return 0;
        }
    }
}
