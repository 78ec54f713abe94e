package app.talkide.controlplane.support;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A test stand-in for the conversation event log with the contract's de-duplication on
 * {@code sourceEventId}; registered only while the application has no implementation of its own (see
 * {@link ConversationSeamFallbackFactory}).
 */
public class InMemoryConversationEventLog implements ConversationEventLog {

    private final Map<UUID, List<ConversationEvent>> events = new HashMap<>();
    private final Map<UUID, Set<String>> sources = new HashMap<>();

    @Override
    public synchronized List<ConversationEvent> append(UUID conversationId, List<NewConversationEvent> batch) {
        List<ConversationEvent> log = events.computeIfAbsent(conversationId, id -> new ArrayList<>());
        Set<String> seen = sources.computeIfAbsent(conversationId, id -> new HashSet<>());
        List<ConversationEvent> stored = new ArrayList<>();
        for (NewConversationEvent event : batch) {
            if (event.sourceEventId() != null && !seen.add(event.sourceEventId())) {
                continue;
            }
            ConversationEvent saved = new ConversationEvent(
                    conversationId, log.size() + 1, event.type(), event.data(), event.sourceEventId(), Instant.now());
            log.add(saved);
            stored.add(saved);
        }
        return stored;
    }

    @Override
    public synchronized List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit) {
        return events.getOrDefault(conversationId, List.of()).stream()
                .filter(event -> event.seq() > afterSeq)
                .limit(limit)
                .toList();
    }
}
