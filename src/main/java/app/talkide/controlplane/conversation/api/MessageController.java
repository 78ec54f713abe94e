package app.talkide.controlplane.conversation.api;

import jakarta.validation.Valid;
import java.security.Principal;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Talking to Mara: a message is accepted (202) once it is stored, and delivered to the worker after;
 * its answer arrives as events. A repeat with the same {@code clientMessageId} answers the same receipt.
 */
@RestController
@RequestMapping("/api/conversations/{id}")
class MessageController {

    private final BrowserConversations conversations;

    MessageController(BrowserConversations conversations) {
        this.conversations = conversations;
    }

    @PostMapping("/messages")
    ResponseEntity<MessageReceipt> send(
            Principal user, @PathVariable UUID id, @Valid @RequestBody SendMessage request) {
        return ResponseEntity.accepted()
                .body(MessageReceipt.of(
                        conversations.send(user.getName(), id, request.clientMessageId(), request.text())));
    }

    @PostMapping("/interrupt")
    ResponseEntity<Void> interrupt(Principal user, @PathVariable UUID id) {
        conversations.interrupt(user.getName(), id);
        return ResponseEntity.accepted().build();
    }
}
