package app.talkide.controlplane.conversation.eventlog;

import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.NewConversationEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.stereotype.Component;

/**
 * PostgreSQL only: a whole group-commit batch as one statement, one round trip, gapless; a race with another
 * replica fails it on purpose ({@link AppendRaced}) so the caller rewrites the batch the slow way. Why and
 * how: docs/conversations.md, "Writing: group commit, gapless across replicas".
 */
@Component
class OneStatementAppend {

    /** The text of the error that fails the statement when it raced (PostgreSQL has no raise outside PL/pgSQL). */
    private static final String RACED = "talkide: worker events appended concurrently";

    private static final String SQL =
            """
            with input as (
                select * from unnest(?::uuid[], ?::text[], ?::text[], ?::text[]) with ordinality
                    as i(conversation_id, type, data, source_event_id, ord)
            ), ranked as (
                select i.*, row_number() over (partition by i.conversation_id, i.source_event_id order by i.ord) as copy
                from input i
            ), fresh as (
                select r.ord, r.conversation_id, r.type, r.data, r.source_event_id,
                       row_number() over (partition by r.conversation_id order by r.ord) as n
                from ranked r
                left join conversation_event e
                       on e.conversation_id = r.conversation_id and e.source_event_id = r.source_event_id
                where r.source_event_id is null or (r.copy = 1 and e.conversation_id is null)
            ), counts as (
                select conversation_id, count(*) as added from fresh group by conversation_id
            ), moved as (
                insert into conversation_sequence as s (conversation_id, last_seq)
                select conversation_id, added from counts order by conversation_id
                on conflict (conversation_id) do update set last_seq = s.last_seq + excluded.last_seq
                returning s.conversation_id, s.last_seq
            ), numbered as (
                select f.ord, f.conversation_id, m.last_seq - c.added + f.n as seq,
                       f.type, f.data, f.source_event_id
                from fresh f
                join counts c on c.conversation_id = f.conversation_id
                join moved m on m.conversation_id = f.conversation_id
            ), inserted as (
                insert into conversation_event (conversation_id, seq, type, data, source_event_id, created_at)
                select conversation_id, seq, type, data, source_event_id, ? from numbered
                on conflict (conversation_id, source_event_id) do nothing
                returning conversation_id, seq
            ), notified as (
                select pg_notify(?, string_agg(? || ':' || conversation_id || ':' || last_seq, ','))
                from (select m.conversation_id, m.last_seq,
                             (row_number() over (order by m.conversation_id) - 1) / %d as chunk
                      from moved m) p
                group by chunk
            )
            select n.ord, n.seq, (select count(*) from notified) as notifications,
                   -- a numbered event the insert skipped leaves a gap: fail the statement, rolling it all back
                   cast(case when i.seq is null then '%s' else '0' end as int) as raced
            from numbered n
            left join inserted i on i.conversation_id = n.conversation_id and i.seq = n.seq
            order by n.ord
            """.formatted(NotificationChannel.MAX_PAYLOAD / NotificationChannel.MAX_ENTRY, RACED);

    private final JdbcTemplate template;

    OneStatementAppend(JdbcTemplate template) {
        this.template = template;
    }

    /**
     * Numbers, inserts and announces the appends, as {@link EventLogRepository#append} does, and commits
     * them: call it outside a transaction. Throws {@link AppendRaced} (nothing was stored; use the slow
     * way) when another replica committed some of the same worker events while it waited for a sequence row.
     */
    Map<UUID, List<List<ConversationEvent>>> append(
            SortedMap<UUID, List<List<NewConversationEvent>>> appends, Instant now, NotificationChannel channel) {
        List<UUID> ids = new ArrayList<>();
        List<NewConversationEvent> events = new ArrayList<>();
        List<List<ConversationEvent>> owners = new ArrayList<>();
        Map<UUID, List<List<ConversationEvent>>> stored = new LinkedHashMap<>();
        appends.forEach((conversationId, batches) -> {
            List<List<ConversationEvent>> kept = new ArrayList<>(batches.size());
            for (List<NewConversationEvent> batch : batches) {
                List<ConversationEvent> owner = new ArrayList<>(batch.size());
                kept.add(owner);
                for (NewConversationEvent event : batch) {
                    ids.add(conversationId);
                    events.add(event);
                    owners.add(owner);
                }
            }
            stored.put(conversationId, kept);
        });
        try {
            template.query(
                    connection -> {
                        PreparedStatement statement = connection.prepareStatement(SQL);
                        statement.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
                        statement.setArray(2, texts(connection, events, NewConversationEvent::type));
                        statement.setArray(3, texts(connection, events, NewConversationEvent::data));
                        statement.setArray(4, texts(connection, events, NewConversationEvent::sourceEventId));
                        statement.setTimestamp(5, Timestamp.from(now));
                        statement.setString(6, channel.name());
                        statement.setString(7, channel.replica());
                        return statement;
                    },
                    (RowCallbackHandler) rs -> {
                        int index = (int) rs.getLong(1) - 1;
                        NewConversationEvent event = events.get(index);
                        owners.get(index)
                                .add(new ConversationEvent(
                                        ids.get(index),
                                        rs.getLong(2),
                                        event.type(),
                                        event.data(),
                                        event.sourceEventId(),
                                        now));
                    });
        } catch (DataAccessException e) {
            if (String.valueOf(e.getMostSpecificCause().getMessage()).contains(RACED)) {
                throw new AppendRaced();
            }
            throw e;
        }
        return stored;
    }

    private static Array texts(
            Connection connection, List<NewConversationEvent> events, Function<NewConversationEvent, String> field)
            throws SQLException {
        return connection.createArrayOf("text", events.stream().map(field).toArray(String[]::new));
    }

    /** Another replica stored some of the batch's worker events first; the statement was rolled back. */
    static final class AppendRaced extends RuntimeException {
        AppendRaced() {
            super("another replica appended the same worker events concurrently", null, false, false);
        }
    }
}
