package app.talkide.controlplane.budget.lease;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.LimitWindows;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A lease admits only what it holds, only within its row's expiry, and gives back what calls did not spend. */
class LocalLeaseTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final LocalLease lease = new LocalLease("alice", now);

    @Test
    void admitsWhatItHoldsAndNoMore() {
        lease.granted(new LeaseRepository.Grant(100, 2, 3, 0, 1_000), windows, now.plusSeconds(60));

        assertThat(lease.take(60, windows)).isTrue();
        assertThat(lease.take(60, windows)).as("only 40 left").isFalse();
        assertThat(lease.take(40, windows)).isTrue();
        assertThat(lease.take(1, windows)).as("both slots in use").isFalse();

        // The first call spent 25 of its 60: the lease shrinks by 25 and 35 are free again, with its slot.
        assertThat(lease.settle(60, 25, 10, now)).isEqualTo(25);
        assertThat(lease.take(35, windows)).isTrue();
        assertThat(lease.take(1, windows)).as("no request of this minute left").isFalse();
    }

    @Test
    void pastItsExpiryALeaseAdmitsNothingUntilRenewed() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(10));
        LimitWindows later = LimitWindows.at(now.plusSeconds(10), BudgetPeriod.MONTH);

        // Other replicas may have given the lease back by then: it must not be used.
        assertThat(lease.take(1, later)).isFalse();
        assertThat(lease.grow(1, later.now())).isFalse();

        lease.renewed(now.plus(Duration.ofSeconds(70)));
        assertThat(lease.take(1, LimitWindows.at(now.plusSeconds(11), BudgetPeriod.MONTH)))
                .as("same minute, renewed")
                .isTrue();
    }

    @Test
    void tokensPerHourStopTheLeaseOnceWhatSettledHereReachesTheLimit() {
        lease.granted(new LeaseRepository.Grant(1_000, 4, 10, 900, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(10, windows)).isTrue();
        lease.settle(10, 10, 100, now);

        assertThat(lease.take(10, windows)).isFalse();
    }
}
