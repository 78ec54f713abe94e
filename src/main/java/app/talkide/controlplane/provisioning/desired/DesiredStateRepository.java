package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.json.JsonMapper;

@Repository
class DesiredStateRepository {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JdbcClient jdbc;

    DesiredStateRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<DesiredStateRecord> find(TenantEnvironmentId id) {
        return jdbc.sql("select * from tenant_environment_desired_state where tenant = :tenant and env = :env")
                .param("tenant", id.tenant())
                .param("env", id.env())
                .query(DesiredStateRepository::map)
                .optional();
    }

    /** Stores the spec, raising the generation; returns whether it differed from the stored one. */
    boolean save(TenantEnvironmentId id, DesiredStateSpec spec, Instant now) {
        String json = JSON.writeValueAsString(spec);
        Optional<DesiredStateRecord> existing = find(id);
        if (existing.isEmpty()) {
            jdbc.sql("""
                            insert into tenant_environment_desired_state
                              (tenant, env, spec, generation, applied_generation, drift_repairs, updated_at)
                            values (:tenant, :env, :spec, 1, 0, 0, :now)
                            """)
                    .param("tenant", id.tenant())
                    .param("env", id.env())
                    .param("spec", json)
                    .param("now", Timestamp.from(now))
                    .update();
            return true;
        }
        if (existing.get().spec().equals(spec)) {
            return false;
        }
        jdbc.sql("""
                        update tenant_environment_desired_state
                        set spec = :spec, generation = generation + 1, updated_at = :now
                        where tenant = :tenant and env = :env
                        """)
                .param("spec", json)
                .param("now", Timestamp.from(now))
                .param("tenant", id.tenant())
                .param("env", id.env())
                .update();
        return true;
    }

    /** Records a finished pass; creates the row (default spec) for a tenant-environment that never had one. */
    void recordPass(TenantEnvironmentId id, long appliedGeneration, int driftRepairs, Instant now) {
        int updated = jdbc.sql("""
                        update tenant_environment_desired_state
                        set applied_generation = :applied, drift_repairs = drift_repairs + :repairs,
                            last_reconciled_at = :now
                        where tenant = :tenant and env = :env
                        """)
                .param("applied", appliedGeneration)
                .param("repairs", driftRepairs)
                .param("now", Timestamp.from(now))
                .param("tenant", id.tenant())
                .param("env", id.env())
                .update();
        if (updated == 0) {
            jdbc.sql("""
                            insert into tenant_environment_desired_state (tenant, env, spec, generation,
                              applied_generation, last_reconciled_at, drift_repairs, updated_at)
                            values (:tenant, :env, '{}', 0, 0, :now, :repairs, :now)
                            """)
                    .param("tenant", id.tenant())
                    .param("env", id.env())
                    .param("repairs", driftRepairs)
                    .param("now", Timestamp.from(now))
                    .update();
        }
    }

    void delete(TenantEnvironmentId id) {
        jdbc.sql("delete from tenant_environment_desired_state where tenant = :tenant and env = :env")
                .param("tenant", id.tenant())
                .param("env", id.env())
                .update();
    }

    private static DesiredStateRecord map(ResultSet rs, int row) throws SQLException {
        Timestamp reconciled = rs.getTimestamp("last_reconciled_at");
        return new DesiredStateRecord(
                JSON.readValue(rs.getString("spec"), DesiredStateSpec.class),
                rs.getLong("generation"),
                rs.getLong("applied_generation"),
                reconciled == null ? null : reconciled.toInstant(),
                rs.getLong("drift_repairs"));
    }
}
