package app.talkide.controlplane.gate;

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

@Repository
class VerificationRepository {

    private final JdbcClient jdbc;

    VerificationRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(Verification v, TenantEnvironmentId in) {
        jdbc.sql("""
                        insert into cutover_verification (id, tenant, env, outcome, cause, detail, requested_by,
                                                          started_at, finished_at)
                        values (:id, :tenant, :env, :outcome, :cause, :detail, :by, :started, :finished)
                        """)
                .param("id", v.id())
                .param("tenant", in.tenant())
                .param("env", in.env())
                .param("outcome", v.outcome())
                .param("cause", v.cause())
                .param("detail", v.detail())
                .param("by", v.requestedBy())
                .param("started", Timestamp.from(v.startedAt()))
                .param("finished", v.finishedAt() == null ? null : Timestamp.from(v.finishedAt()))
                .update();
    }

    void finish(UUID id, String outcome, @Nullable String detail, Instant at) {
        jdbc.sql("""
                        update cutover_verification set outcome = :outcome, detail = :detail, finished_at = :at
                        where id = :id and outcome = 'RUNNING'
                        """)
                .param("outcome", outcome)
                .param("detail", detail == null ? null : abbreviate(detail))
                .param("at", Timestamp.from(at))
                .param("id", id)
                .update();
    }

    /** Newest first. */
    List<Verification> of(TenantEnvironmentId in, int limit) {
        return jdbc.sql("""
                        select * from cutover_verification where tenant = :t and env = :e
                        order by started_at desc, id limit :limit
                        """)
                .param("t", in.tenant())
                .param("e", in.env())
                .param("limit", limit)
                .query((rs, n) -> map(rs))
                .list();
    }

    /** The newest verification that decided something (passed, failed or overridden). */
    Optional<Verification> latestDecision(TenantEnvironmentId in) {
        return jdbc.sql("""
                        select * from cutover_verification where tenant = :t and env = :e and outcome <> 'RUNNING'
                        order by finished_at desc, id limit 1
                        """)
                .param("t", in.tenant())
                .param("e", in.env())
                .query((rs, n) -> map(rs))
                .optional();
    }

    Optional<Verification> find(UUID id) {
        return jdbc.sql("select * from cutover_verification where id = :id")
                .param("id", id)
                .query((rs, n) -> map(rs))
                .optional();
    }

    private static String abbreviate(String text) {
        return text.length() > 2000 ? text.substring(0, 1999) + "…" : text;
    }

    private static Verification map(ResultSet rs) throws SQLException {
        Timestamp finished = rs.getTimestamp("finished_at");
        return new Verification(
                rs.getObject("id", UUID.class),
                rs.getString("tenant"),
                rs.getString("env"),
                rs.getString("outcome"),
                rs.getString("cause"),
                rs.getString("detail"),
                rs.getString("requested_by"),
                rs.getTimestamp("started_at").toInstant(),
                finished == null ? null : finished.toInstant());
    }
}
