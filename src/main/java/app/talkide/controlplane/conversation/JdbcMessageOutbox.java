package app.talkide.controlplane.conversation;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * The outbox in the database, so an accepted message survives any restart: whatever is not marked
 * delivered is there for the next delivery attempt, on this replica or another. Messages are written by
 * {@link MessageIntake}.
 */
@Component
class JdbcMessageOutbox implements MessageOutbox {

    private final OutboxRepository repository;
    private final Clock clock;

    JdbcMessageOutbox(OutboxRepository repository, Clock clock) {
        this.repository = repository;
        this.clock = clock;
    }

    @Override
    public Optional<OutboxMessage> nextUndelivered(UUID conversationId) {
        return repository.nextUndelivered(conversationId);
    }

    @Override
    public List<UUID> conversationsWithUndelivered() {
        return repository.conversationsWithUndelivered();
    }

    @Override
    public Optional<String> traceParentOf(UUID messageId) {
        return repository.traceParentOf(messageId);
    }

    @Override
    public void markDelivered(UUID messageId) {
        repository.markDelivered(messageId, clock.instant());
    }
}
