package app.talkide.controlplane.budget;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Gives back reservations of calls that died with their replica. Every replica runs it; a reservation
 * is released by whichever deletes its row first, so running it twice is harmless.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class ReservationExpiry {

    private static final Logger log = LoggerFactory.getLogger(ReservationExpiry.class);

    private final UserBudgetService budgets;

    ReservationExpiry(UserBudgetService budgets) {
        this.budgets = budgets;
    }

    @Scheduled(
            fixedDelayString = "${talkide.budget.expiry-interval:1m}",
            initialDelayString = "${talkide.budget.expiry-interval:1m}")
    void expire() {
        int released = budgets.expireDeadReservations();
        if (released > 0) {
            log.info("Released {} expired budget reservation(s) or lease(s) of calls that never settled", released);
        }
    }

    /** This replica's leases: idle ones go back, those in use are renewed (every third of the lease TTL). */
    @Scheduled(fixedDelay = 1_000, initialDelay = 1_000)
    void sweepLeases() {
        budgets.sweepLeases();
    }
}
