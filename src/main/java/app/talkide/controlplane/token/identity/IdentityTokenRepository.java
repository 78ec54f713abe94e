package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class IdentityTokenRepository {

    private final JdbcClient jdbc;

    IdentityTokenRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(IdentityTokenRecord record, String tokenHash) {
        jdbc.sql("""
                        insert into worker_identity_token (id, tenant, env, token_hash, created_at, expires_at)
                        values (:id, :tenant, :env, :hash, :createdAt, :expiresAt)
                        """)
                .param("id", record.id())
                .param("tenant", record.tenantEnvironment().tenant())
                .param("env", record.tenantEnvironment().env())
                .param("hash", tokenHash)
                .param("createdAt", Timestamp.from(record.createdAt()))
                .param("expiresAt", Timestamp.from(record.expiresAt()))
                .update();
    }

    Optional<IdentityTokenRecord> findByHash(String tokenHash) {
        return jdbc.sql("select * from worker_identity_token where token_hash = :hash")
                .param("hash", tokenHash)
                .query(IdentityTokenRepository::map)
                .optional();
    }

    Optional<IdentityTokenRecord> find(UUID id) {
        return jdbc.sql("select * from worker_identity_token where id = :id")
                .param("id", id)
                .query(IdentityTokenRepository::map)
                .optional();
    }

    List<IdentityTokenRecord> findByTenantEnvironment(TenantEnvironmentId id) {
        return jdbc.sql("select * from worker_identity_token where tenant = :tenant and env = :env order by created_at")
                .param("tenant", id.tenant())
                .param("env", id.env())
                .query(IdentityTokenRepository::map)
                .list();
    }

    /** Sets the revocation time of one token unless it is already revoked earlier. */
    int revoke(UUID id, Instant at) {
        return jdbc.sql("""
                        update worker_identity_token set revoked_at = :at
                        where id = :id and (revoked_at is null or revoked_at > :at)
                        """).param("at", Timestamp.from(at)).param("id", id).update();
    }

    /** Revokes, at the given time, every token of the tenant-environment except one, unless revoked earlier. */
    int revokeOthers(TenantEnvironmentId scope, UUID keep, Instant at) {
        return jdbc.sql("""
                        update worker_identity_token set revoked_at = :at
                        where tenant = :tenant and env = :env and id <> :keep
                          and (revoked_at is null or revoked_at > :at)
                        """)
                .param("at", Timestamp.from(at))
                .param("tenant", scope.tenant())
                .param("env", scope.env())
                .param("keep", keep)
                .update();
    }

    /** Revokes, at the given time, the tenant-environment's tokens issued before one, unless revoked earlier. */
    int revokeIssuedBefore(TenantEnvironmentId scope, UUID keep, Instant issuedBefore, Instant at) {
        return jdbc.sql("""
                        update worker_identity_token set revoked_at = :at
                        where tenant = :tenant and env = :env and id <> :keep and created_at <= :before
                          and (revoked_at is null or revoked_at > :at)
                        """)
                .param("at", Timestamp.from(at))
                .param("tenant", scope.tenant())
                .param("env", scope.env())
                .param("keep", keep)
                .param("before", Timestamp.from(issuedBefore))
                .update();
    }

    /** Tokens that still work and are not being rotated out. */
    List<IdentityTokenRecord> findLiveUnrevoked(Instant now) {
        return jdbc.sql("""
                        select * from worker_identity_token
                        where expires_at > :now and revoked_at is null
                        order by created_at
                        """)
                .param("now", Timestamp.from(now))
                .query(IdentityTokenRepository::map)
                .list();
    }

    private static IdentityTokenRecord map(ResultSet rs, int row) throws SQLException {
        Timestamp revoked = rs.getTimestamp("revoked_at");
        return new IdentityTokenRecord(
                rs.getObject("id", UUID.class),
                TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                rs.getTimestamp("created_at").toInstant(),
                rs.getTimestamp("expires_at").toInstant(),
                revoked == null ? null : revoked.toInstant());
    }
}
