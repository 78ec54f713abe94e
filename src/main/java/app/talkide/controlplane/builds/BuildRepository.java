package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.json.JsonMapper;

/** The {@code build} table. Every state change is conditional on the state it leaves, so races settle in SQL. */
@Repository
class BuildRepository {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JdbcClient jdbc;

    BuildRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(UUID id, TenantEnvironmentId in, UUID conversationId, String userId, BuildSpec spec, Instant now) {
        jdbc.sql("""
                        insert into build (id, tenant, env, conversation_id, user_id, kind, spec, state, created_at)
                        values (:id, :tenant, :env, :conversation, :user, :kind, :spec, 'QUEUED', :now)
                        """)
                .param("id", id)
                .param("tenant", in.tenant())
                .param("env", in.env())
                .param("conversation", conversationId)
                .param("user", userId)
                .param("kind", spec.kind().wireName())
                .param("spec", JSON.writeValueAsString(spec))
                .param("now", Timestamp.from(now))
                .update();
    }

    Optional<Build> find(UUID id) {
        return jdbc.sql("select * from build where id = :id")
                .param("id", id)
                .query((rs, n) -> map(rs))
                .optional();
    }

    int count(TenantEnvironmentId in, BuildState state) {
        return jdbc.sql("select count(*) from build where tenant = :t and env = :e and state = :s")
                .param("t", in.tenant())
                .param("e", in.env())
                .param("s", state.name())
                .query(Integer.class)
                .single();
    }

    /** 1 for the next build to start; 0 once it is no longer queued. */
    int queuePosition(Build build) {
        if (build.state() != BuildState.QUEUED) {
            return 0;
        }
        return jdbc.sql(
                        "select count(*) from build where tenant = :t and env = :e and state = 'QUEUED' and seq <= :seq")
                .param("t", build.tenantEnvironment().tenant())
                .param("e", build.tenantEnvironment().env())
                .param("seq", build.seq())
                .query(Integer.class)
                .single();
    }

    /** The oldest queued build of the tenant-environment, now RUNNING under the given Job name; empty if none. */
    Optional<Build> claimNext(TenantEnvironmentId in, Instant now) {
        Optional<UUID> next = jdbc.sql("""
                        select id from build where tenant = :t and env = :e and state = 'QUEUED'
                        order by seq limit 1
                        """)
                .param("t", in.tenant())
                .param("e", in.env())
                .query(UUID.class)
                .optional();
        if (next.isEmpty()) {
            return Optional.empty();
        }
        int claimed = jdbc.sql("""
                        update build set state = 'RUNNING', job_name = :job, started_at = :now
                        where id = :id and state = 'QUEUED'
                        """)
                .param("job", BuildNames.jobName(next.get()))
                .param("now", Timestamp.from(now))
                .param("id", next.get())
                .update();
        // Lost to a cancel in between: look again, the next one may be claimable.
        return claimed == 1 ? find(next.get()) : claimNext(in, now);
    }

    boolean transition(UUID id, BuildState from, BuildState to, @Nullable String reason, Instant now) {
        return jdbc.sql("""
                        update build set state = :to, reason = :reason, finished_at = :now
                        where id = :id and state = :from
                        """)
                        .param("to", to.name())
                        .param("reason", reason == null ? null : abbreviate(reason))
                        .param("now", Timestamp.from(now))
                        .param("id", id)
                        .param("from", from.name())
                        .update()
                == 1;
    }

    List<TenantEnvironmentId> withQueued() {
        return jdbc.sql("select distinct tenant, env from build where state = 'QUEUED'")
                .query((rs, n) -> TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")))
                .list();
    }

    /** The tenant-environment's queued and running builds, oldest first. */
    List<Build> unfinished(TenantEnvironmentId in) {
        return jdbc.sql("""
                        select * from build where tenant = :t and env = :e and state in ('QUEUED', 'RUNNING')
                        order by seq
                        """)
                .param("t", in.tenant())
                .param("e", in.env())
                .query((rs, n) -> map(rs))
                .list();
    }

    List<Build> inState(BuildState state) {
        return jdbc.sql("select * from build where state = :s order by seq")
                .param("s", state.name())
                .query((rs, n) -> map(rs))
                .list();
    }

    List<Build> ofConversation(UUID conversationId) {
        return jdbc.sql("select * from build where conversation_id = :c order by seq desc")
                .param("c", conversationId)
                .query((rs, n) -> map(rs))
                .list();
    }

    /** Newest first; {@code before} is the last seq of the previous page (0: from the newest). */
    List<Build> ofTenantEnvironment(TenantEnvironmentId in, long before, int limit) {
        return jdbc.sql("""
                        select * from build where tenant = :t and env = :e and (:before = 0 or seq < :before)
                        order by seq desc limit :limit
                        """)
                .param("t", in.tenant())
                .param("e", in.env())
                .param("before", before)
                .param("limit", limit)
                .query((rs, n) -> map(rs))
                .list();
    }

    private static String abbreviate(String text) {
        return text.length() > 1000 ? text.substring(0, 999) + "…" : text;
    }

    private static Build map(ResultSet rs) throws SQLException {
        return new Build(
                rs.getObject("id", UUID.class),
                rs.getLong("seq"),
                TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                rs.getObject("conversation_id", UUID.class),
                rs.getString("user_id"),
                JSON.readValue(rs.getString("spec"), BuildSpec.class),
                BuildState.valueOf(rs.getString("state")),
                rs.getString("job_name"),
                rs.getString("reason"),
                rs.getTimestamp("created_at").toInstant(),
                instant(rs.getTimestamp("started_at")),
                instant(rs.getTimestamp("finished_at")));
    }

    private static @Nullable Instant instant(@Nullable Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
