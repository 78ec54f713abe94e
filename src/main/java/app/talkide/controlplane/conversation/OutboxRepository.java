package app.talkide.controlplane.conversation;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class OutboxRepository {

    /** A stored message with what decides whether a re-send is the same message. */
    record Row(OutboxMessage message, String clientMessageId) {}

    private final JdbcClient jdbc;

    OutboxRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Inserts unless the conversation already has a message with this client id; true if inserted. A
     * concurrent insert of the same client id waits for the other transaction and then inserts nothing.
     */
    boolean insertIfAbsent(OutboxMessage message, String clientMessageId, String senderUserId) {
        return jdbc.sql("""
                                insert into conversation_message
                                    (id, conversation_id, client_message_id, sender_user_id, text, accepted_at, trace_parent)
                                values (:id, :conversation, :clientId, :sender, :text, :acceptedAt, :traceParent)
                                on conflict do nothing
                                """)
                        .param("id", message.id())
                        .param("conversation", message.conversationId())
                        .param("clientId", clientMessageId)
                        .param("sender", senderUserId)
                        .param("text", message.text())
                        .param("acceptedAt", Timestamp.from(message.acceptedAt()))
                        .param("traceParent", message.traceParent(), java.sql.Types.VARCHAR)
                        .update()
                == 1;
    }

    Optional<Row> findByClientId(UUID conversationId, String clientMessageId) {
        return jdbc.sql("""
                        select * from conversation_message
                        where conversation_id = :conversation and client_message_id = :clientId
                        """)
                .param("conversation", conversationId)
                .param("clientId", clientMessageId)
                .query((rs, row) -> new Row(map(rs, row), rs.getString("client_message_id")))
                .optional();
    }

    Optional<OutboxMessage> nextUndelivered(UUID conversationId) {
        return jdbc.sql("""
                        select * from conversation_message
                        where conversation_id = :conversation and delivered_at is null
                        order by seq
                        limit 1
                        """)
                .param("conversation", conversationId)
                .query(OutboxRepository::map)
                .optional();
    }

    List<UUID> conversationsWithUndelivered() {
        return jdbc.sql("select distinct conversation_id from conversation_message where delivered_at is null")
                .query((rs, row) -> rs.getObject("conversation_id", UUID.class))
                .list();
    }

    Optional<String> traceParentOf(UUID messageId) {
        return jdbc.sql("select trace_parent from conversation_message where id = :id and trace_parent is not null")
                .param("id", messageId)
                .query(String.class)
                .optional();
    }

    void markDelivered(UUID messageId, Instant now) {
        jdbc.sql("update conversation_message set delivered_at = :now where id = :id and delivered_at is null")
                .param("now", Timestamp.from(now))
                .param("id", messageId)
                .update();
    }

    private static OutboxMessage map(ResultSet rs, int row) throws SQLException {
        return new OutboxMessage(
                rs.getObject("id", UUID.class),
                rs.getObject("conversation_id", UUID.class),
                rs.getString("text"),
                rs.getTimestamp("accepted_at").toInstant(),
                rs.getString("trace_parent"));
    }
}
