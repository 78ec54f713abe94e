package app.talkide.controlplane.budget;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
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
    private final NamedParameterJdbcTemplate batches;

    UsageRecordRepository(JdbcClient jdbc, NamedParameterJdbcTemplate batches) {
        this.jdbc = jdbc;
        this.batches = batches;
    }

    private static final String INSERT = "insert into usage_record (id, request_id, tenant, env, conversation_id,"
            + " user_id, endpoint, model, model_family, input_tokens, cache_write_5m_tokens, cache_write_1h_tokens,"
            + " cache_read_tokens, output_tokens, cost_micros, overrun_micros, outcome, upstream_status, started_at,"
            + " duration_micros, first_byte_micros) values (:id, :requestId, :tenant, :env, :conversation,"
            + " :user, :endpoint, :model, :family, :input, :write5m, :write1h, :read, :output, :cost,"
            + " :overrun, :outcome, :status, :startedAt, :duration, :firstByte)";

    int countOfConversation(UUID conversationId) {
        return jdbc.sql("select count(*) from usage_record where conversation_id = :c")
                .param("c", conversationId)
                .query(Integer.class)
                .single();
    }

    void insert(UsageRecord record, long overrunMicros) {
        jdbc.sql(INSERT).params(params(record, overrunMicros)).update();
    }

    /** Many records in one round trip (a JDBC batch), inside the caller's transaction. */
    void insertAll(List<UsageRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        batches.batchUpdate(
                INSERT,
                records.stream()
                        .map(record -> new MapSqlParameterSource(params(record, 0)))
                        .toArray(MapSqlParameterSource[]::new));
    }

    private static Map<String, Object> params(UsageRecord record, long overrunMicros) {
        UsageRecord.TokenCounts tokens = record.tokens();
        Map<String, Object> params = new HashMap<>(32);
        params.put("id", UUID.randomUUID());
        params.put("requestId", record.requestId());
        params.put("tenant", record.tenant());
        params.put("env", record.env());
        params.put("conversation", record.conversationId());
        params.put("user", record.userId());
        params.put("endpoint", record.endpoint());
        params.put("model", truncate(record.model(), 128));
        params.put("family", record.modelFamily());
        params.put("input", tokens.input());
        params.put("write5m", tokens.cacheWrite5m());
        params.put("write1h", tokens.cacheWrite1h());
        params.put("read", tokens.cacheRead());
        params.put("output", tokens.output());
        params.put("cost", record.costMicros());
        params.put("overrun", overrunMicros);
        params.put("outcome", record.outcome().code());
        params.put("status", record.upstreamStatus());
        params.put("startedAt", Timestamp.from(record.startedAt()));
        params.put("duration", record.duration().toNanos() / 1_000);
        params.put(
                "firstByte",
                record.firstByte() == null ? null : record.firstByte().toNanos() / 1_000);
        return params;
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
