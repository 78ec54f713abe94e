package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** A row of {@code conversation_event} as an event: one mapping for every query that reads the log. */
public final class ConversationEventRows {

    private ConversationEventRows() {}

    public static ConversationEvent map(ResultSet rs, int row) throws SQLException {
        return new ConversationEvent(
                rs.getObject("conversation_id", UUID.class),
                rs.getLong("seq"),
                rs.getString("type"),
                rs.getString("data"),
                rs.getString("source_event_id"),
                rs.getTimestamp("created_at").toInstant());
    }
}
