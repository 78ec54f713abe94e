package app.talkide.controlplane.conversation;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Optional;
import java.util.UUID;
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

    static Conversation map(ResultSet rs, int row) throws SQLException {
        return new Conversation(
                rs.getObject("id", UUID.class),
                TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                rs.getString("owner_user_id"),
                rs.getString("title"),
                rs.getTimestamp("created_at").toInstant());
    }
}
