package app.talkide.controlplane.report;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.json.JsonMapper;

@Repository
class WorkerReportRepository {

    /** A row as stored, with the hash that decides whether a repeat is the same report. */
    record Row(StoredReport report, String payloadSha256) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JdbcClient jdbc;

    WorkerReportRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(StoredReport report, String payload, String payloadSha256) {
        jdbc.sql("""
                        insert into worker_report (conversation_id, tenant, env, user_id, kind, client_id, payload,
                                                   payload_sha256, occurred_at, received_at)
                        values (:conversation, :tenant, :env, :user, :kind, :clientId, :payload, :hash, :occurredAt,
                                :receivedAt)
                        """)
                .param("conversation", report.conversationId())
                .param("tenant", report.tenant())
                .param("env", report.env())
                .param("user", report.userId())
                .param("kind", report.kind())
                .param("clientId", report.id())
                .param("payload", payload)
                .param("hash", payloadSha256)
                .param("occurredAt", report.occurredAt() == null ? null : Timestamp.from(report.occurredAt()))
                .param("receivedAt", Timestamp.from(report.receivedAt()))
                .update();
    }

    Optional<Row> find(UUID conversationId, String kind, String clientId) {
        return jdbc.sql("select * from worker_report where conversation_id = :c and kind = :k and client_id = :id")
                .param("c", conversationId)
                .param("k", kind)
                .param("id", clientId)
                .query((rs, n) -> new Row(map(rs), rs.getString("payload_sha256")))
                .optional();
    }

    List<StoredReport> byConversation(UUID conversationId, @Nullable String kind, long after, int limit) {
        return jdbc.sql("""
                        select * from worker_report
                        where conversation_id = :c and (cast(:k as varchar) is null or kind = :k) and seq > :after
                        order by seq limit :limit
                        """)
                .param("c", conversationId)
                .param("k", kind)
                .param("after", after)
                .param("limit", limit)
                .query((rs, n) -> map(rs))
                .list();
    }

    List<StoredReport> search(
            @Nullable String tenant,
            @Nullable String env,
            @Nullable UUID conversationId,
            @Nullable String kind,
            long after,
            int limit) {
        return jdbc.sql("""
                        select * from worker_report
                        where (cast(:tenant as varchar) is null or tenant = :tenant)
                          and (cast(:env as varchar) is null or env = :env)
                          and (cast(:c as uuid) is null or conversation_id = :c)
                          and (cast(:k as varchar) is null or kind = :k)
                          and seq > :after
                        order by seq limit :limit
                        """)
                .param("tenant", tenant)
                .param("env", env)
                .param("c", conversationId)
                .param("k", kind)
                .param("after", after)
                .param("limit", limit)
                .query((rs, n) -> map(rs))
                .list();
    }

    private static StoredReport map(ResultSet rs) throws SQLException {
        Timestamp occurred = rs.getTimestamp("occurred_at");
        return new StoredReport(
                rs.getLong("seq"),
                rs.getString("client_id"),
                rs.getString("kind"),
                rs.getObject("conversation_id", UUID.class),
                rs.getString("tenant"),
                rs.getString("env"),
                rs.getString("user_id"),
                occurred == null ? null : occurred.toInstant(),
                rs.getTimestamp("received_at").toInstant(),
                JSON.readTree(rs.getString("payload")));
    }
}
