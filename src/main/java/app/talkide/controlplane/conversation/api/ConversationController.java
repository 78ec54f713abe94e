package app.talkide.controlplane.conversation.api;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.net.URI;
import java.security.Principal;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Starting, listing and reading conversations. The user id is the principal's name: the JWT's
 * {@code sub} (or {@code talkide.auth.jwt.principal-claim}) in production, the login name locally.
 */
@RestController
@RequestMapping("/api/conversations")
class ConversationController {

    private final BrowserConversations conversations;

    ConversationController(BrowserConversations conversations) {
        this.conversations = conversations;
    }

    @PostMapping
    ResponseEntity<ConversationView> start(Principal user, @Valid @RequestBody StartConversation request) {
        Conversation started = conversations.start(
                user.getName(), TenantEnvironmentId.of(request.tenant(), request.env()), request.title());
        return ResponseEntity.created(URI.create("/api/conversations/" + started.id()))
                .body(ConversationView.of(started));
    }

    @GetMapping
    ConversationPage list(
            Principal user,
            @RequestParam(required = false) @Nullable String tenant,
            @RequestParam(required = false) @Nullable String env,
            @RequestParam(required = false) @Nullable UUID before,
            @RequestParam(defaultValue = "50") @Min(1) @Max(200) int limit) {
        return conversations.list(user.getName(), filter(tenant, env), before, limit);
    }

    @GetMapping("/{id}")
    ConversationView get(Principal user, @PathVariable UUID id) {
        return ConversationView.of(conversations.get(user.getName(), id));
    }

    private static @Nullable TenantEnvironmentId filter(@Nullable String tenant, @Nullable String env) {
        if (tenant == null && env == null) {
            return null;
        }
        if (tenant == null || env == null) {
            throw new ConversationProblems.InvalidQuery(
                    tenant == null ? "tenant" : "env", "tenant and env filter together");
        }
        return TenantEnvironmentId.of(tenant, env);
    }
}
