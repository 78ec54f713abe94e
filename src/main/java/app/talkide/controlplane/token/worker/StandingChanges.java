package app.talkide.controlplane.token.worker;

import app.talkide.controlplane.membership.MembershipRevoked;
import app.talkide.controlplane.system.NotifyChannel;
import app.talkide.controlplane.system.PostgresListener;
import app.talkide.controlplane.tenant.TenantEnvironmentClosed;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Tells every replica's {@link OwnerStanding} what to forget. On PostgreSQL the change's own transaction
 * sends a NOTIFY (delivered only if it commits) that every replica's {@link StandingListener} hears and
 * hands back here; this replica forgets once the change committed. Whenever the LISTEN (re)starts or
 * breaks, everything remembered is forgotten, since notifications sent meanwhile are lost; until then
 * {@link OwnerStanding#MAX_AGE} bounds how stale a yes can be. Payloads are tab-separated, a character
 * user ids cannot hold: {@code m<TAB>tenant<TAB>env<TAB>user} or {@code t<TAB>tenant<TAB>env}.
 */
@Component
class StandingChanges implements PostgresListener.Handler {

    private final OwnerStanding standing;
    private final JdbcTemplate jdbc;
    private final NotifyChannel channel;

    StandingChanges(OwnerStanding standing, JdbcTemplate jdbc) {
        this.standing = standing;
        this.jdbc = jdbc;
        this.channel = NotifyChannel.of(jdbc, "standing");
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
    @Override
    public void heard(@Nullable String payload) {
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

    /** Whatever was said before this LISTEN took effect went unheard. */
    @Override
    public void listening(boolean again) {
        standing.forgetAll();
    }

    /** Notifications may be missed until the LISTEN is back. */
    @Override
    public void lost() {
        standing.forgetAll();
    }

    NotifyChannel channel() {
        return channel;
    }

    private void send(String payload) {
        if (channel.crossesReplicas()) {
            jdbc.queryForList("select pg_notify(?, ?)", channel.name(), payload);
        }
    }
}
