package app.talkide.controlplane.membership;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class MembershipRepository {

    private final JdbcClient jdbc;

    MembershipRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Inserts unless present; concurrent grants of the same membership both succeed, one row results. */
    void insertIfAbsent(TenantEnvironmentId id, String userId, Instant now) {
        jdbc.sql("""
                        insert into tenant_environment_member (tenant, env, user_id, granted_at)
                        values (:tenant, :env, :user, :now)
                        on conflict do nothing
                        """)
                .param("tenant", id.tenant())
                .param("env", id.env())
                .param("user", userId)
                .param("now", Timestamp.from(now))
                .update();
    }

    boolean delete(TenantEnvironmentId id, String userId) {
        return jdbc.sql(
                                "delete from tenant_environment_member where tenant = :tenant and env = :env and user_id = :user")
                        .param("tenant", id.tenant())
                        .param("env", id.env())
                        .param("user", userId)
                        .update()
                == 1;
    }

    Optional<Membership> find(TenantEnvironmentId id, String userId) {
        return jdbc.sql("""
                        select * from tenant_environment_member
                        where tenant = :tenant and env = :env and user_id = :user
                        """)
                .param("tenant", id.tenant())
                .param("env", id.env())
                .param("user", userId)
                .query(MembershipRepository::map)
                .optional();
    }

    List<Membership> byTenantEnvironment(TenantEnvironmentId id) {
        return jdbc.sql("""
                        select * from tenant_environment_member
                        where tenant = :tenant and env = :env order by user_id
                        """)
                .param("tenant", id.tenant())
                .param("env", id.env())
                .query(MembershipRepository::map)
                .list();
    }

    List<Membership> byUser(String userId) {
        return jdbc.sql("select * from tenant_environment_member where user_id = :user order by tenant, env")
                .param("user", userId)
                .query(MembershipRepository::map)
                .list();
    }

    private static Membership map(ResultSet rs, int row) throws SQLException {
        return new Membership(
                TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                rs.getString("user_id"),
                rs.getTimestamp("granted_at").toInstant());
    }
}
