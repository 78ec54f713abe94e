package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.BuildPlacement;
import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.provisioning.WorkerPod;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

@Repository
class DesiredStateRepository {

    /**
     * Leaves out unset fields and ignores fields it does not know: during a rolling update the previous and
     * the next release read what this one wrote, and the reverse (docs/developing.md, expand-only).
     */
    private static final JsonMapper JSON = JsonMapper.builder()
            .changeDefaultPropertyInclusion(
                    inclusion -> JsonInclude.Value.construct(Include.NON_NULL, Include.NON_NULL))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

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
        // Pod settings and build placement have their own columns (V59, V63): the previous release can still
        // read `spec`.
        String json = JSON.writeValueAsString(spec.withPod(null).withBuildPlacement(null));
        String pod = spec.pod() == null ? null : JSON.writeValueAsString(spec.pod());
        String builds = spec.buildPlacement() == null ? null : JSON.writeValueAsString(spec.buildPlacement());
        Optional<DesiredStateRecord> existing = find(id);
        if (existing.isEmpty()) {
            jdbc.sql("""
                            insert into tenant_environment_desired_state
                              (tenant, env, spec, worker_pod, build_placement, generation, applied_generation,
                               drift_repairs, updated_at)
                            values (:tenant, :env, :spec, :pod, :builds, 1, 0, 0, :now)
                            """)
                    .param("tenant", id.tenant())
                    .param("env", id.env())
                    .param("spec", json)
                    .param("pod", pod, java.sql.Types.VARCHAR)
                    .param("builds", builds, java.sql.Types.VARCHAR)
                    .param("now", Timestamp.from(now))
                    .update();
            return true;
        }
        if (existing.get().spec().equals(spec)) {
            return false;
        }
        jdbc.sql("""
                        update tenant_environment_desired_state
                        set spec = :spec, worker_pod = :pod, build_placement = :builds, generation = generation + 1, updated_at = :now
                        where tenant = :tenant and env = :env
                        """)
                .param("spec", json)
                .param("pod", pod, java.sql.Types.VARCHAR)
                .param("builds", builds, java.sql.Types.VARCHAR)
                .param("now", Timestamp.from(now))
                .param("tenant", id.tenant())
                .param("env", id.env())
                .update();
        return true;
    }

    /**
     * Stores the worker's MCP servers, raising the generation; returns whether they differed. The row is made
     * (default spec) for a tenant-environment that never had one.
     */
    boolean saveMcpServers(TenantEnvironmentId id, List<McpServer> servers, Instant now) {
        Optional<DesiredStateRecord> existing = find(id);
        if (existing.isPresent() && existing.get().mcpServers().equals(servers)) {
            return false;
        }
        String json = servers.isEmpty() ? null : JSON.writeValueAsString(servers);
        if (existing.isEmpty()) {
            jdbc.sql("""
                            insert into tenant_environment_desired_state
                              (tenant, env, spec, mcp_servers, generation, applied_generation, drift_repairs, updated_at)
                            values (:tenant, :env, '{}', :servers, 1, 0, 0, :now)
                            """)
                    .param("tenant", id.tenant())
                    .param("env", id.env())
                    .param("servers", json, java.sql.Types.VARCHAR)
                    .param("now", Timestamp.from(now))
                    .update();
            return true;
        }
        jdbc.sql("""
                        update tenant_environment_desired_state
                        set mcp_servers = :servers, generation = generation + 1, updated_at = :now
                        where tenant = :tenant and env = :env
                        """)
                .param("servers", json, java.sql.Types.VARCHAR)
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

    private static @Nullable WorkerPod pod(@Nullable String json) {
        return json == null ? null : JSON.readValue(json, WorkerPod.class);
    }

    private static @Nullable BuildPlacement buildPlacement(@Nullable String json) {
        return json == null ? null : JSON.readValue(json, BuildPlacement.class);
    }

    private static List<McpServer> mcpServers(@Nullable String json) {
        return json == null ? List.of() : Arrays.asList(JSON.readValue(json, McpServer[].class));
    }

    private static DesiredStateRecord map(ResultSet rs, int row) throws SQLException {
        Timestamp reconciled = rs.getTimestamp("last_reconciled_at");
        return new DesiredStateRecord(
                JSON.readValue(rs.getString("spec"), DesiredStateSpec.class)
                        .withPod(pod(rs.getString("worker_pod")))
                        .withBuildPlacement(buildPlacement(rs.getString("build_placement"))),
                rs.getLong("generation"),
                rs.getLong("applied_generation"),
                reconciled == null ? null : reconciled.toInstant(),
                rs.getLong("drift_repairs"),
                mcpServers(rs.getString("mcp_servers")));
    }
}
