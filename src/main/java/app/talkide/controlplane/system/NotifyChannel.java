package app.talkide.controlplane.system;

import java.util.Locale;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A PostgreSQL NOTIFY channel replicas tell each other things on, or none on H2 (one process, nobody else
 * to tell). The name carries the schema, so deployments and test runs sharing one database do not hear
 * each other, and is cut to PostgreSQL's 63-byte identifier limit.
 *
 * @param name the channel to LISTEN and NOTIFY on
 * @param crossesReplicas whether this database carries notifications to other replicas (PostgreSQL)
 */
public record NotifyChannel(String name, boolean crossesReplicas) {

    /** The channel for {@code topic} ("events", "standing") in the database {@code jdbc} reaches. */
    public static NotifyChannel of(JdbcTemplate jdbc, String topic) {
        String[] kind = jdbc.execute((ConnectionCallback<String[]>) connection ->
                new String[] {connection.getMetaData().getDatabaseProductName(), String.valueOf(connection.getSchema())
                });
        boolean postgres = kind != null && "PostgreSQL".equalsIgnoreCase(kind[0]);
        String schema =
                kind == null ? "public" : kind[1].toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        String name = "talkide_" + topic + "_" + schema;
        return new NotifyChannel(name.length() > 63 ? name.substring(0, 63) : name, postgres);
    }
}
