package app.talkide.controlplane.conversation;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class ConversationRepository {

    private final JdbcClient jdbc;

    ConversationRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(Conversation conversation) {
        jdbc.sql("""
                        insert into conversation (id, tenant, env, owner_user_id, title, created_at)
                        values (:id, :tenant, :env, :owner, :title, :createdAt)
                        """)
                .param("id", conversation.id())
                .param("tenant", conversation.tenantEnvironment().tenant())
                .param("env", conversation.tenantEnvironment().env())
                .param("owner", conversation.ownerUserId())
                .param("title", conversation.title())
                .param("createdAt", Timestamp.from(conversation.createdAt()))
                .update();
    }

    Optional<Conversation> find(UUID id) {
        return jdbc.sql("select * from conversation where id = :id")
                .param("id", id)
                .query(ConversationRepository::map)
                .optional();
    }

    /**
     * The owner's conversations in the given tenant-environments, newest first, older than {@code before}
     * (exclusive) when given.
     */
    List<Conversation> ownedBy(
            String owner, Collection<TenantEnvironmentId> in, @Nullable Conversation before, int limit) {
        if (in.isEmpty()) {
            return List.of();
        }
        String older =
                before == null ? "" : "and (created_at < :beforeAt or (created_at = :beforeAt and id < :beforeId))";
        var query = jdbc.sql("""
                        select * from conversation
                        where owner_user_id = :owner and (tenant || '/' || env) in (:paths) %s
                        order by created_at desc, id desc
                        limit :limit
                        """.formatted(older))
                .param("owner", owner)
                .param("paths", in.stream().map(TenantEnvironmentId::path).toList())
                .param("limit", limit);
        if (before != null) {
            query = query.param("beforeAt", Timestamp.from(before.createdAt())).param("beforeId", before.id());
        }
        return query.query(ConversationRepository::map).list();
    }

    static Conversation map(ResultSet rs, int row) throws SQLException {
        return new Conversation(
                rs.getObject("id", UUID.class),
                TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                rs.getString("owner_user_id"),
                rs.getString("title"),
                rs.getTimestamp("created_at").toInstant());
    }
}
