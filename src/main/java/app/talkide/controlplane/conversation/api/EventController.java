package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.api.ApiRecords.EventPage;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.security.Principal;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A conversation's events from the log, for catching up without a stream (or paging through history):
 * those after {@code after} (a {@code seq}), oldest first.
 */
@RestController
class EventController {

    private final BrowserConversations conversations;

    EventController(BrowserConversations conversations) {
        this.conversations = conversations;
    }

    @GetMapping("/api/conversations/{id}/events")
    EventPage events(
            Principal user,
            @PathVariable UUID id,
            @RequestParam(defaultValue = "0") @Min(0) long after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return conversations.events(user.getName(), id, after, limit);
    }
}
