package app.talkide.controlplane.gateway.handler;

import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord;
import app.talkide.controlplane.budget.UserBudgetService;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Settles calls on a thread of their own once their response has ended. Jetty reads the next request
 * on a keep-alive connection only after the previous one's handler returned, so a settlement on the
 * request's thread (its statements and a wait for the WAL flush) delayed the worker's next call on
 * that connection; under load that wait was most of its time to first byte. The worker already had
 * every byte either way; nothing it sees depends on when settlement ends.
 *
 * <p>Until a settlement lands the reservation stays counted, so a user's next call sees more held,
 * never less: no overspend. Shutdown waits for settlements still running (the server has stopped
 * taking calls by then); one that cannot finish leaves its reservation to expire, as before.
 */
@Component
class Settlements implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(Settlements.class);
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(15);

    private final UserBudgetService budgets;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("gateway-settle-", 0).factory());

    Settlements(UserBudgetService budgets) {
        this.budgets = budgets;
    }

    /** Replaces the reservation with the call's cost, in the background (inline once shutting down). */
    void settle(Reservation reservation, UsageRecord record) {
        try {
            threads.execute(() -> settleNow(reservation, record));
        } catch (RejectedExecutionException shuttingDown) {
            settleNow(reservation, record);
        }
    }

    private void settleNow(Reservation reservation, UsageRecord record) {
        try {
            budgets.postCallDebit(reservation, record);
        } catch (RuntimeException e) {
            log.error(
                    "Could not settle gateway call {} (reservation {} expires on its own)",
                    record.requestId(),
                    reservation.id(),
                    e);
        }
    }

    @Override
    public void destroy() throws InterruptedException {
        threads.shutdown();
        if (!threads.awaitTermination(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            log.warn(
                    "Gateway settlements still running after {}; their reservations expire on their own",
                    SHUTDOWN_WAIT);
        }
    }
}
