package app.talkide.controlplane.conversation;

import app.talkide.controlplane.observability.Traces;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Accepts a user's message: stores it in the outbox and appends {@code message.accepted} to the
 * conversation's event log in one transaction, and only after that commits tells the worker side
 * ({@link MessageAccepted}), which reads the message back from the outbox. The same client message id
 * sent again, also concurrently, is the same message: stored once, announced once.
 */
@Service
public class MessageIntake {

    static final String ACCEPTED_EVENT = "message.accepted";
    private static final int ATTEMPTS = 3;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final OutboxRepository repository;
    private final ConversationEventLog eventLog;
    private final ApplicationEventPublisher events;
    private final TransactionTemplate transactions;
    private final Clock clock;
    private final Traces traces;

    MessageIntake(
            OutboxRepository repository,
            ConversationEventLog eventLog,
            ApplicationEventPublisher events,
            PlatformTransactionManager transactionManager,
            Clock clock,
            Traces traces) {
        this.repository = repository;
        this.eventLog = eventLog;
        this.events = events;
        this.transactions = new TransactionTemplate(transactionManager);
        this.clock = clock;
        this.traces = traces;
    }

    /** The caller has checked that the sender may write to the conversation. */
    public AcceptedMessage accept(Conversation conversation, String senderUserId, String clientMessageId, String text) {
        for (int attempt = 1; ; attempt++) {
            try {
                return transactions.execute(status -> store(conversation, senderUserId, clientMessageId, text));
            } catch (DuplicateKeyException | ConcurrencyFailureException | QueryTimeoutException raced) {
                // A concurrent post of the same client id won (some databases report it instead of
                // waiting, H2 as a lock timeout when the winner is slow); the next attempt finds its message.
                if (attempt == ATTEMPTS) {
                    throw raced;
                }
            }
        }
    }

    private AcceptedMessage store(Conversation conversation, String sender, String clientMessageId, String text) {
        var existing = repository.findByClientId(conversation.id(), clientMessageId);
        if (existing.isPresent()) {
            return repeated(existing.get(), text);
        }
        OutboxMessage message =
                new OutboxMessage(UUID.randomUUID(), conversation.id(), text, clock.instant(), traces.traceparent());
        if (!repository.insertIfAbsent(message, clientMessageId, sender)) {
            return repeated(
                    repository
                            .findByClientId(conversation.id(), clientMessageId)
                            .orElseThrow(),
                    text);
        }
        eventLog.append(conversation.id(), List.of(acceptedEvent(message, clientMessageId)));
        // Listeners are @TransactionalEventListener: they hear of it only once this transaction commits.
        events.publishEvent(new MessageAccepted(message.conversationId(), message.id()));
        return new AcceptedMessage(
                message.id(), message.conversationId(), clientMessageId, message.acceptedAt(), false);
    }

    private static AcceptedMessage repeated(OutboxRepository.Row row, String text) {
        if (!row.message().text().equals(text)) {
            throw new ClientMessageIdReused();
        }
        OutboxMessage message = row.message();
        return new AcceptedMessage(
                message.id(), message.conversationId(), row.clientMessageId(), message.acceptedAt(), true);
    }

    private static NewConversationEvent acceptedEvent(OutboxMessage message, String clientMessageId) {
        String data = JSON.writeValueAsString(JSON.createObjectNode()
                .put("messageId", message.id().toString())
                .put("clientMessageId", clientMessageId)
                .put("text", message.text()));
        return new NewConversationEvent(ACCEPTED_EVENT, data, null);
    }
}
