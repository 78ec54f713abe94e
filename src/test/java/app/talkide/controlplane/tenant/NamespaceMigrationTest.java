package app.talkide.controlplane.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestDatabase;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * V53 on a database the previous release filled: every tenant-environment gets its namespace, and where
 * two names already shared one (created before the check existed) the older keeps it and the migration
 * still completes, so an upgrade never fails to start on old data.
 */
@DatabaseTest
class NamespaceMigrationTest {

    @Test
    void backfillGivesASharedNamespaceToTheOlderNameAndTheUniqueIndexHoldsAfterwards() {
        Map<String, Object> settings = TestDatabase.freshSettings();
        DriverManagerDataSource dataSource = new DriverManagerDataSource(
                (String) settings.get("spring.datasource.url"),
                (String) settings.get("spring.datasource.username"),
                (String) settings.get("spring.datasource.password"));
        JdbcClient jdbc = JdbcClient.create(dataSource);
        migrate(dataSource, settings, "52");
        insert(jdbc, "acme", "dev", "2026-01-01T00:00:00Z");
        insert(jdbc, "a-b", "c", "2026-01-02T00:00:00Z");
        insert(jdbc, "a", "b-c", "2026-01-03T00:00:00Z");

        migrate(dataSource, settings, "53");

        List<String> rows = jdbc.sql("select tenant || '/' || env || '=' || coalesce(namespace, 'null') from"
                        + " tenant_environment order by created_at")
                .query(String.class)
                .list();
        assertThat(rows).containsExactly("acme/dev=acme-dev", "a-b/c=a-b-c", "a/b-c=null");
        assertThatThrownBy(() -> jdbc.sql("update tenant_environment set namespace = 'a-b-c' where tenant = 'a'")
                        .update())
                .isInstanceOf(DataIntegrityViolationException.class);
    }

    private static void migrate(DriverManagerDataSource dataSource, Map<String, Object> settings, String target) {
        var config = Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .target(target);
        Object schema = settings.get("spring.flyway.default-schema");
        if (schema != null) {
            config.schemas(schema.toString()).defaultSchema(schema.toString());
        }
        config.load().migrate();
    }

    private static void insert(JdbcClient jdbc, String tenant, String env, String at) {
        jdbc.sql("""
                        insert into tenant_environment (tenant, env, status, created_at, updated_at)
                        values (:tenant, :env, 'READY', :at, :at)
                        """)
                .param("tenant", tenant)
                .param("env", env)
                .param("at", Timestamp.from(Instant.parse(at)))
                .update();
    }
}
