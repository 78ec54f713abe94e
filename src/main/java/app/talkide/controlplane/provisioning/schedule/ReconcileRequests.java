package app.talkide.controlplane.provisioning.schedule;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Desired-state changes waiting for the leader. Written in a transaction of its own, as it is called
 * after the change's transaction committed.
 */
@Repository
class ReconcileRequests {

    private final JdbcClient jdbc;
    private final TransactionTemplate ownTransaction;

    ReconcileRequests(JdbcClient jdbc, PlatformTransactionManager transactions) {
        this.jdbc = jdbc;
        this.ownTransaction = new TransactionTemplate(transactions);
        this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    void add(TenantEnvironmentId id, Instant at) {
        ownTransaction.executeWithoutResult(status -> {
            int updated = jdbc.sql("update provisioning_reconcile_request set requested_at = :at"
                            + " where tenant = :tenant and env = :env")
                    .param("at", Timestamp.from(at))
                    .param("tenant", id.tenant())
                    .param("env", id.env())
                    .update();
            if (updated == 0) {
                jdbc.sql("""
                                insert into provisioning_reconcile_request (tenant, env, requested_at)
                                select :tenant, :env, :at
                                where not exists (select 1 from provisioning_reconcile_request
                                                  where tenant = :tenant and env = :env)
                                """)
                        .param("at", Timestamp.from(at))
                        .param("tenant", id.tenant())
                        .param("env", id.env())
                        .update();
            }
        });
    }

    /** Removes and returns every waiting request; a request added meanwhile stays for the next poll. */
    List<TenantEnvironmentId> takeAll() {
        return ownTransaction.execute(status -> {
            record Request(TenantEnvironmentId id, Timestamp at) {}
            List<Request> waiting = jdbc.sql("select tenant, env, requested_at from provisioning_reconcile_request")
                    .query((rs, row) -> new Request(
                            TenantEnvironmentId.of(rs.getString("tenant"), rs.getString("env")),
                            rs.getTimestamp("requested_at")))
                    .list();
            for (Request request : waiting) {
                jdbc.sql("delete from provisioning_reconcile_request"
                                + " where tenant = :tenant and env = :env and requested_at <= :at")
                        .param("tenant", request.id().tenant())
                        .param("env", request.id().env())
                        .param("at", request.at())
                        .update();
            }
            return waiting.stream().map(Request::id).toList();
        });
    }
}
