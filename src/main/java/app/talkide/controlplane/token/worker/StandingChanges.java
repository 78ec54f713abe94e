package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.membership.MembershipRevoked;
import app.talkide.controlplane.tenant.TenantEnvironmentClosed;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Tells every replica's {@link OwnerStanding} what to forget. On PostgreSQL the change's own transaction
 * sends a NOTIFY (delivered only if it commits) that {@link StandingListener} hears on each replica; this
 * replica forgets once the change committed. The channel is named after the schema, so deployments and
 * test runs sharing one database do not hear each other. Payloads are tab-separated, a character user ids
 * cannot hold: {@code m<TAB>tenant<TAB>env<TAB>user} or {@code t<TAB>tenant<TAB>env}.
 */
@Component
class StandingChanges {

    private final OwnerStanding standing;
    private final JdbcTemplate jdbc;
    private final boolean postgres;
    private final String channel;

    StandingChanges(OwnerStanding standing, JdbcTemplate jdbc) {
        this.standing = standing;
        this.jdbc = jdbc;
        String[] kind = jdbc.execute((ConnectionCallback<String[]>) connection ->
                new String[] {connection.getMetaData().getDatabaseProductName(), String.valueOf(connection.getSchema())
                });
        this.postgres = kind != null && "PostgreSQL".equalsIgnoreCase(kind[0]);
        String schema =
                kind == null ? "public" : kind[1].toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        String name = "talkide_standing_" + schema;
        this.channel = name.length() > 63 ? name.substring(0, 63) : name;
    }

    @TransactionalEventListener(phase = TransactionPhase.BEFORE_COMMIT)
    void notifyOthers(MembershipRevoked revoked) {
        send("m\t" + revoked.tenantEnvironment().tenant() + "\t"
                + revoked.tenantEnvironment().env() + "\t" + revoked.userId());
    }

    @TransactionalEventListener(phase = TransactionPhase.BEFORE_COMMIT)
    void notifyOthers(TenantEnvironmentClosed closed) {
        send("t\t" + closed.id().tenant() + "\t" + closed.id().env());
    }

    @TransactionalEventListener(fallbackExecution = true)
    void forget(MembershipRevoked revoked) {
        standing.forget(revoked.tenantEnvironment(), revoked.userId());
    }

    @TransactionalEventListener(fallbackExecution = true)
    void forget(TenantEnvironmentClosed closed) {
        standing.forget(closed.id());
    }

    /** Applies another replica's notification; garbage is ignored (the max age still bounds staleness). */
    void heard(@Nullable String payload) {
        if (payload == null) {
            return;
        }
        String[] parts = payload.split("\t", -1);
        try {
            if (parts.length == 4 && parts[0].equals("m")) {
                standing.forget(TenantEnvironmentId.of(parts[1], parts[2]), parts[3]);
            } else if (parts.length == 3 && parts[0].equals("t")) {
                standing.forget(TenantEnvironmentId.of(parts[1], parts[2]));
            }
        } catch (RuntimeException malformed) {
            // not a name we could have cached
        }
    }

    /** Notifications may have been missed. */
    void heardNothingForAWhile() {
        standing.forgetAll();
    }

    boolean crossesReplicas() {
        return postgres;
    }

    String channel() {
        return channel;
    }

    private void send(String payload) {
        if (postgres) {
            jdbc.queryForList("select pg_notify(?, ?)", channel, payload);
        }
    }
}
