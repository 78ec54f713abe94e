package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.system.NotifyChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Whether replicas tell each other about appends (PostgreSQL) or only this process listens (H2), on
 * which channel, and the payload: {@code <replica>:<conversationId>:<lastSeq>}, small and free of
 * content, so a listener reads the rows from the table.
 */
@Component
class NotificationChannel {

    /** PostgreSQL's limit is 8000 bytes; stay below it. */
    static final int MAX_PAYLOAD = 7_900;

    /** The longest payload of one conversation, with its separator: replica, UUID, a long, 3 separators. */
    static final int MAX_ENTRY = 8 + 36 + 19 + 3;

    private final NotifyChannel channel;
    private final String replica = UUID.randomUUID().toString().substring(0, 8);

    NotificationChannel(JdbcTemplate template) {
        this.channel = NotifyChannel.of(template, "events");
    }

    NotifyChannel channel() {
        return channel;
    }

    boolean crossesReplicas() {
        return channel.crossesReplicas();
    }

    String name() {
        return channel.name();
    }

    /** This replica's name in payloads, so that it can ignore its own notifications. */
    String replica() {
        return replica;
    }

    String payload(UUID conversationId, long lastSeq) {
        return replica + ":" + conversationId + ":" + lastSeq;
    }

    /** Several conversations' payloads joined with {@code ,} into as few notifications as fit (8000 bytes). */
    List<String> batches(List<String> payloads) {
        List<String> batches = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String payload : payloads) {
            if (!current.isEmpty() && current.length() + payload.length() + 1 > MAX_PAYLOAD) {
                batches.add(current.toString());
                current.setLength(0);
            }
            current.append(current.isEmpty() ? "" : ",").append(payload);
        }
        if (!current.isEmpty()) {
            batches.add(current.toString());
        }
        return batches;
    }

    /** The conversations another replica appended to; none for our own (published in-process) or garbage. */
    List<Appended> parse(@Nullable String notification) {
        if (notification == null) {
            return List.of();
        }
        List<Appended> appended = new ArrayList<>();
        for (String payload : notification.split(",")) {
            String[] parts = payload.split(":");
            if (parts.length != 3 || parts[0].equals(replica)) {
                continue;
            }
            try {
                appended.add(new Appended(UUID.fromString(parts[1]), Long.parseLong(parts[2])));
            } catch (IllegalArgumentException malformed) {
                // not ours to understand
            }
        }
        return appended;
    }

    record Appended(UUID conversationId, long lastSeq) {}
}
