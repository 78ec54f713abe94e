package app.talkide.controlplane.token.identity;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * {@code talkide.worker.identity.tokens.expiring}: tenant-environments whose newest valid identity token
 * expires within a week. Rotation replaces tokens long before that, so anything here means rotation is
 * not happening (the alert in the chart). Read at scrape time: one small aggregate query.
 */
@Component
class IdentityTokenExpiryMetrics {

    static final Duration WINDOW = Duration.ofDays(7);

    IdentityTokenExpiryMetrics(JdbcClient jdbc, Clock clock, MeterRegistry meters) {
        Gauge.builder("talkide.worker.identity.tokens.expiring", () -> expiring(jdbc, clock))
                .description("Tenant-environments whose newest valid identity token expires within 7 days")
                .register(meters);
    }

    private static long expiring(JdbcClient jdbc, Clock clock) {
        var now = clock.instant();
        return jdbc.sql("""
                        select count(*) from (
                            select tenant, env, max(expires_at) as newest from worker_identity_token
                            where revoked_at is null and expires_at > :now
                            group by tenant, env) latest
                        where newest < :soon
                        """)
                .param("now", Timestamp.from(now))
                .param("soon", Timestamp.from(now.plus(WINDOW)))
                .query(Long.class)
                .single();
    }
}
