package app.talkide.controlplane.tenant;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class TenantEnvironmentRepository {

    private final JdbcClient jdbc;

    TenantEnvironmentRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Inserts unless the name or its namespace is present; returns whether a row was created. Safe under
     * concurrent callers: of two racing inserts of one namespace the unique index lets one win, and the
     * other (PostgreSQL waits for the winner's commit, H2 for its lock) inserts nothing. The
     * {@code not exists} also finds rows the previous release wrote without a namespace.
     */
    boolean insertIfAbsent(TenantEnvironmentId id, TenantEnvironmentStatus status, Instant now) {
        int rows = jdbc.sql("""
                        insert into tenant_environment (tenant, env, namespace, status, created_at, updated_at)
                        select :tenant, :env, :namespace, :status, :now, :now
                        where not exists (select 1 from tenant_environment where tenant || '-' || env = :namespace)
                        on conflict do nothing
                        """)
                .param("tenant", id.tenant())
                .param("env", id.env())
                .param("namespace", id.namespace())
                .param("status", status.name())
                .param("now", Timestamp.from(now))
                .update();
        return rows == 1;
    }

    /** The tenant-environment whose namespace this is, whatever its name. */
    Optional<TenantEnvironmentId> holderOf(String namespace) {
        return jdbc.sql("""
                        select tenant, env from tenant_environment where tenant || '-' || env = :namespace
                        order by created_at limit 1
                        """)
                .param("namespace", namespace)
                .query((rs, row) -> TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")))
                .optional();
    }

    Optional<TenantEnvironment> find(TenantEnvironmentId id) {
        return jdbc.sql("select * from tenant_environment where tenant = :tenant and env = :env")
                .param("tenant", id.tenant())
                .param("env", id.env())
                .query(TenantEnvironmentRepository::map)
                .optional();
    }

    List<TenantEnvironment> findAll() {
        return jdbc.sql("select * from tenant_environment order by tenant, env")
                .query(TenantEnvironmentRepository::map)
                .list();
    }

    /** Returns whether anything changed: the same status and reason again writes nothing. */
    boolean updateStatus(TenantEnvironmentId id, TenantEnvironmentStatus status, @Nullable String reason, Instant now) {
        return updateStatusWhere(id, status, reason, now, "");
    }

    /**
     * As {@link #updateStatus}, but never over {@code DELETING} or {@code DELETED}, checked in the same
     * statement: a deletion that commits while a reconcile pass runs is not overwritten by its outcome.
     */
    boolean updateStatusUnlessDeleting(
            TenantEnvironmentId id, TenantEnvironmentStatus status, @Nullable String reason, Instant now) {
        return updateStatusWhere(id, status, reason, now, "and status not in ('DELETING', 'DELETED')");
    }

    private boolean updateStatusWhere(
            TenantEnvironmentId id,
            TenantEnvironmentStatus status,
            @Nullable String reason,
            Instant now,
            String guard) {
        return jdbc.sql("""
                        update tenant_environment set status = :status, status_reason = :reason, updated_at = :now
                        where tenant = :tenant and env = :env
                          and (status <> :status or coalesce(status_reason, '') <> coalesce(:reason, ''))
                        """ + guard)
                        .param("status", status.name())
                        .param("reason", reason)
                        .param("now", Timestamp.from(now))
                        .param("tenant", id.tenant())
                        .param("env", id.env())
                        .update()
                == 1;
    }

    /**
     * A new status without a reason, only if it differs (a reason already given for the same status, e.g.
     * why it is degraded, stays) and never over {@code DELETING} or {@code DELETED}: the check and the
     * write are one statement, so a worker seen going away during a teardown cannot undo the teardown's
     * status between a read and a write.
     */
    boolean updateStatusUnlessDeleting(TenantEnvironmentId id, TenantEnvironmentStatus status, Instant now) {
        return jdbc.sql("""
                        update tenant_environment set status = :status, status_reason = null, updated_at = :now
                        where tenant = :tenant and env = :env
                          and status not in ('DELETING', 'DELETED')
                          and status <> :status
                        """)
                        .param("status", status.name())
                        .param("now", Timestamp.from(now))
                        .param("tenant", id.tenant())
                        .param("env", id.env())
                        .update()
                == 1;
    }

    private static TenantEnvironment map(ResultSet rs, int row) throws SQLException {
        return new TenantEnvironment(
                TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                TenantEnvironmentStatus.valueOf(rs.getString("status")),
                rs.getString("status_reason"),
                rs.getTimestamp("created_at").toInstant(),
                rs.getTimestamp("updated_at").toInstant());
    }
}
