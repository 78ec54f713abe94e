package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Component;

/** The event log in the database, written through the group commit. */
@Component
class JdbcConversationEventLog implements ConversationEventLog {

    private final GroupCommitWriter writer;
    private final EventLogRepository repository;

    JdbcConversationEventLog(GroupCommitWriter writer, EventLogRepository repository) {
        this.writer = writer;
        this.repository = repository;
    }

    @Override
    public List<ConversationEvent> append(UUID conversationId, List<NewConversationEvent> events) {
        return writer.append(conversationId, events);
    }

    @Override
    public Optional<ConversationEvent> lastOfTypes(UUID conversationId, Collection<String> types) {
        return repository.lastOfTypes(conversationId, types);
    }

    @Override
    public List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit) {
        return repository.readAfter(conversationId, afterSeq, limit);
    }
}
