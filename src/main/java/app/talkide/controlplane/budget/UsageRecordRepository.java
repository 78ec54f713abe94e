package app.talkide.controlplane.budget;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class UsageRecordRepository {

    /** What a usage report may be grouped by, and the column expression behind each: never user input in SQL. */
    static final Map<String, String> GROUPINGS = Map.of(
            "user", "user_id",
            "tenant", "tenant || '/' || env",
            "model", "model",
            "family", "model_family",
            "outcome", "outcome");

    private final JdbcClient jdbc;

    UsageRecordRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(UsageRecord record, long overrunMicros) {
        UsageRecord.TokenCounts tokens = record.tokens();
        jdbc.sql("insert into usage_record (id, request_id, tenant, env, conversation_id, user_id, endpoint, model,"
                        + " model_family, input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens,"
                        + " output_tokens, cost_micros, overrun_micros, outcome, upstream_status, started_at,"
                        + " duration_micros, first_byte_micros) values (:id, :requestId, :tenant, :env, :conversation,"
                        + " :user, :endpoint, :model, :family, :input, :write5m, :write1h, :read, :output, :cost,"
                        + " :overrun, :outcome, :status, :startedAt, :duration, :firstByte)")
                .param("id", UUID.randomUUID())
                .param("requestId", record.requestId())
                .param("tenant", record.tenant())
                .param("env", record.env())
                .param("conversation", record.conversationId())
                .param("user", record.userId())
                .param("endpoint", record.endpoint())
                .param("model", truncate(record.model(), 128))
                .param("family", record.modelFamily())
                .param("input", tokens.input())
                .param("write5m", tokens.cacheWrite5m())
                .param("write1h", tokens.cacheWrite1h())
                .param("read", tokens.cacheRead())
                .param("output", tokens.output())
                .param("cost", record.costMicros())
                .param("overrun", overrunMicros)
                .param("outcome", record.outcome().code())
                .param("status", record.upstreamStatus())
                .param("startedAt", Timestamp.from(record.startedAt()))
                .param("duration", record.duration().toNanos() / 1_000)
                .param(
                        "firstByte",
                        record.firstByte() == null ? null : record.firstByte().toNanos() / 1_000)
                .update();
    }

    List<UsageSummary> summarize(String grouping, Instant from, Instant to, String userId) {
        String key = GROUPINGS.get(grouping);
        if (key == null) {
            throw new IllegalArgumentException("unknown grouping " + grouping);
        }
        return jdbc.sql("select " + key + " as grp, count(*) as calls, sum(input_tokens) as input,"
                        + " sum(cache_write_5m_tokens) as write5m, sum(cache_write_1h_tokens) as write1h,"
                        + " sum(cache_read_tokens) as read_tokens, sum(output_tokens) as output,"
                        + " sum(cost_micros) as cost, sum(overrun_micros) as overrun from usage_record"
                        + " where started_at >= :from and started_at < :to"
                        + (userId.isEmpty() ? "" : " and user_id = :user")
                        + " group by " + key + " order by cost desc, grp")
                .param("from", Timestamp.from(from))
                .param("to", Timestamp.from(to))
                .params(userId.isEmpty() ? Map.of() : Map.of("user", userId))
                .query((rs, row) -> new UsageSummary(
                        rs.getString("grp"),
                        rs.getLong("calls"),
                        rs.getLong("input"),
                        rs.getLong("write5m"),
                        rs.getLong("write1h"),
                        rs.getLong("read_tokens"),
                        rs.getLong("output"),
                        rs.getLong("cost"),
                        rs.getLong("overrun")))
                .list();
    }

    private static String truncate(String value, int max) {
        return value.length() <= max ? value : value.substring(0, max);
    }
}
