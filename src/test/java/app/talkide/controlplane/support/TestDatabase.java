package app.talkide.controlplane.support;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Which database a test runs on. Every test runs on H2 by default; tests tagged {@code database} run a
 * second time on PostgreSQL (the {@code postgresql} Surefire execution sets
 * {@code -Dtalkide.test.database=postgresql}). Each Spring context, or each caller of
 * {@link #freshSettings()}, gets a database of its own: an in-memory H2 database, or a new schema in
 * the PostgreSQL database, so test classes and parallel builds never see each other's rows.
 *
 * <p>PostgreSQL comes from {@code TALKIDE_TEST_POSTGRES_URL} (with {@code _USER}/{@code _PASSWORD}),
 * else {@code 127.0.0.1:5432/test} as on the development machines, else a Testcontainers PostgreSQL
 * where Docker runs.
 */
public final class TestDatabase {

    public static final String SELECTOR = "talkide.test.database";
    private static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final long STALE_SCHEMA_SECONDS = 6 * 3600;

    private static volatile Server postgres;

    private TestDatabase() {}

    public static boolean isPostgres() {
        return "postgresql".equalsIgnoreCase(System.getProperty(SELECTOR, "h2"));
    }

    /** Spring properties pointing at a new, empty database (or schema) of the selected kind. */
    public static Map<String, Object> freshSettings() {
        return isPostgres() ? freshPostgresSchema() : freshH2();
    }

    private static Map<String, Object> freshH2() {
        String name = "t" + UUID.randomUUID().toString().replace("-", "");
        return Map.of(
                "spring.datasource.url",
                "jdbc:h2:mem:" + name
                        + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1",
                "spring.datasource.username",
                "sa",
                "spring.datasource.password",
                "");
    }

    /** A new schema in the shared PostgreSQL database; also usable to start two instances on one schema. */
    public static Map<String, Object> freshPostgresSchema() {
        Server server = postgres();
        String schema = "t_" + Instant.now().getEpochSecond() + "_"
                + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
        server.execute("create schema " + schema);
        String separator = server.url().contains("?") ? "&" : "?";
        return Map.of(
                "spring.datasource.url",
                server.url() + separator + "currentSchema=" + schema,
                "spring.datasource.username",
                server.user(),
                "spring.datasource.password",
                server.password(),
                "spring.flyway.schemas",
                schema,
                "spring.flyway.default-schema",
                schema,
                "talkide.test.schema",
                schema);
    }

    private static Server postgres() {
        Server server = postgres;
        if (server == null) {
            synchronized (TestDatabase.class) {
                if (postgres == null) {
                    postgres = locate();
                    postgres.dropStaleSchemas();
                }
                server = postgres;
            }
        }
        return server;
    }

    private static Server locate() {
        String url = System.getenv("TALKIDE_TEST_POSTGRES_URL");
        if (url != null && !url.isBlank()) {
            return new Server(
                    url, env("TALKIDE_TEST_POSTGRES_USER", "postgres"), env("TALKIDE_TEST_POSTGRES_PASSWORD", ""));
        }
        if (reachable("127.0.0.1", 5432)) {
            return new Server(LOCAL_URL, "postgres", "");
        }
        if (DockerClientFactory.instance().isDockerAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:16-alpine");
            container.start();
            return new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword());
        }
        throw new IllegalStateException("Tests on PostgreSQL need one: none at 127.0.0.1:5432, no"
                + " TALKIDE_TEST_POSTGRES_URL, and no Docker for Testcontainers. Start it with"
                + " 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'.");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }

    private static boolean reachable(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    record Server(String url, String user, String password) {

        void execute(String sql) {
            try (Connection connection = DriverManager.getConnection(url, user, password);
                    Statement statement = connection.createStatement()) {
                statement.execute(sql);
            } catch (SQLException e) {
                throw new IllegalStateException("PostgreSQL statement failed: " + sql, e);
            }
        }

        /** Schemas left by runs that ended hours ago; recent ones may belong to a build running right now. */
        void dropStaleSchemas() {
            long cutoff = Instant.now().getEpochSecond() - STALE_SCHEMA_SECONDS;
            List<String> stale = new ArrayList<>();
            try (Connection connection = DriverManager.getConnection(url, user, password);
                    Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery(
                            "select nspname from pg_namespace where nspname ~ '^t_[0-9]+_[0-9a-f]+$'")) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (Long.parseLong(name.split("_")[1]) < cutoff) {
                        stale.add(name);
                    }
                }
            } catch (SQLException e) {
                return;
            }
            stale.forEach(name -> execute("drop schema if exists " + name + " cascade"));
        }
    }
}
