package app.talkide.controlplane.conversation.eventlog;

import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Whether replicas tell each other about appends (PostgreSQL) or only this process listens (H2), on
 * which channel, and the payload: {@code <replica>:<conversationId>:<lastSeq>}, small and free of
 * content, so a listener reads the rows from the table. The channel is named after the schema, so
 * deployments (and test runs) sharing one database do not hear each other.
 */
@Component
class NotificationChannel {

    private final boolean postgres;
    private final String name;
    private final String replica = UUID.randomUUID().toString().substring(0, 8);

    NotificationChannel(JdbcTemplate template) {
        String[] kind = template.execute((ConnectionCallback<String[]>) connection ->
                new String[] {connection.getMetaData().getDatabaseProductName(), String.valueOf(connection.getSchema())
                });
        this.postgres = kind != null && "PostgreSQL".equalsIgnoreCase(kind[0]);
        String schema =
                kind == null ? "public" : kind[1].toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        String channel = "talkide_events_" + schema;
        this.name = channel.length() > 63 ? channel.substring(0, 63) : channel;
    }

    boolean crossesReplicas() {
        return postgres;
    }

    String name() {
        return name;
    }

    String payload(UUID conversationId, long lastSeq) {
        return replica + ":" + conversationId + ":" + lastSeq;
    }

    /** A notification from another replica; empty for our own (already published in-process) or garbage. */
    Optional<Appended> parse(@Nullable String payload) {
        if (payload == null) {
            return Optional.empty();
        }
        String[] parts = payload.split(":");
        if (parts.length != 3 || parts[0].equals(replica)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Appended(UUID.fromString(parts[1]), Long.parseLong(parts[2])));
        } catch (IllegalArgumentException malformed) {
            return Optional.empty();
        }
    }

    record Appended(UUID conversationId, long lastSeq) {}
}
