package app.talkide.controlplane.conversation;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Starts and finds conversations. */
@Service
public class Conversations {

    private final ConversationRepository repository;
    private final Clock clock;

    Conversations(ConversationRepository repository, Clock clock) {
        this.repository = repository;
        this.clock = clock;
    }

    @Transactional
    public Conversation start(TenantEnvironmentId tenantEnvironment, String ownerUserId, String title) {
        Conversation conversation =
                new Conversation(UUID.randomUUID(), tenantEnvironment, ownerUserId, title, clock.instant());
        repository.insert(conversation);
        return conversation;
    }

    public Optional<Conversation> find(UUID id) {
        return repository.find(id);
    }

    /**
     * A page of the owner's conversations in the given tenant-environments, newest first; {@code before}
     * is the last conversation of the previous page.
     */
    public List<Conversation> ownedBy(
            String ownerUserId, Collection<TenantEnvironmentId> in, @Nullable Conversation before, int limit) {
        return repository.ownedBy(ownerUserId, in, before, limit);
    }
}
