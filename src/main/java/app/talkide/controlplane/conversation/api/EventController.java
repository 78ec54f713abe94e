package app.talkide.controlplane.conversation.api;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.security.Principal;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
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

    /**
     * The last turns, whole, newest page first ({@code before} = the previous page's {@code before} for the
     * turns before it); the console shows them and opens the stream after the page's {@code cursor}.
     */
    @GetMapping("/api/conversations/{id}/history")
    HistoryPage history(
            Principal user,
            @PathVariable UUID id,
            @RequestParam(required = false) @Nullable @Min(1) Long before,
            @RequestParam(defaultValue = "10") @Min(1) @Max(100) int turns) {
        return conversations.history(user.getName(), id, before, turns);
    }
}
