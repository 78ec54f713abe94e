package app.talkide.controlplane.conversation;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Answers "which tenant-environment and owner does conversation X belong to?" on every token mint and
 * every worker call. A conversation's scope never changes, so answers are cached; unknown ids are not,
 * so a conversation created a moment ago is found at once.
 */
@Component
public class ConversationDirectory {

    private final ConversationRepository repository;
    private final Cache<UUID, ConversationScope> scopes = Caffeine.newBuilder()
            .maximumSize(100_000)
            .expireAfterAccess(Duration.ofHours(1))
            .build();

    ConversationDirectory(ConversationRepository repository) {
        this.repository = repository;
    }

    public Optional<ConversationScope> scopeOf(UUID conversationId) {
        ConversationScope cached = scopes.getIfPresent(conversationId);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<ConversationScope> found = repository.find(conversationId).map(Conversation::scope);
        found.ifPresent(scope -> scopes.put(conversationId, scope));
        return found;
    }
}
