package app.talkide.controlplane.budget.lease;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetRows;
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

    @Test
    void aClosedOrRevokedLeaseAdmitsNothing() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(10, windows)).isTrue();

        lease.revoke(windows.minute());
        assertThat(lease.revoked()).isTrue();
        assertThat(lease.take(1, windows)).isFalse();
        assertThat(lease.grow(1, now)).isFalse();
        assertThat(lease.holdFree(1, now)).isZero();

        LocalLease lost = new LocalLease("bob", now);
        lost.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        lost.lost();
        assertThat(lost.closed()).isTrue();
        assertThat(lost.take(1, windows)).isFalse();
        assertThat(lost.grow(1, now)).isFalse();
        assertThat(lost.holdFree(1, now)).isZero();
    }

    @Test
    void aNewMinuteNeedsNewRequestsAndReplacesTheOldOnes() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(120));
        LimitWindows nextMinute = LimitWindows.at(now.plusSeconds(60), BudgetPeriod.MONTH);

        assertThat(lease.take(1, nextMinute)).isFalse();
        assertThat(lease.needs(1, nextMinute)).isEqualTo(new LocalLease.Needs(0, false, true, 100));

        lease.granted(new LeaseRepository.Grant(0, 0, 1, 0, 1_000), nextMinute, now.plusSeconds(120));
        assertThat(lease.take(1, nextMinute)).isTrue();
        assertThat(lease.take(1, nextMinute)).as("last minute's nine are gone").isFalse();
        assertThat(lease.minute()).isEqualTo(nextMinute.minute());
    }

    @Test
    void aGrantInTheSameMinuteAddsRequests() {
        lease.granted(new LeaseRepository.Grant(100, 4, 1, 0, 1_000), windows, now.plusSeconds(60));
        lease.granted(new LeaseRepository.Grant(0, 0, 1, 0, 1_000), windows, now.plusSeconds(60));

        assertThat(lease.take(1, windows)).isTrue();
        assertThat(lease.take(1, windows)).isTrue();
        assertThat(lease.take(1, windows)).isFalse();
    }

    @Test
    void aRunningCallGrowsWithinWhatIsFree() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(50, windows)).isTrue();

        assertThat(lease.grow(50, now)).isTrue();
        assertThat(lease.grow(1, now)).isFalse();
        assertThat(lease.settle(100, 100, 0, now)).isEqualTo(100);
        assertThat(lease.inUse()).isFalse();
    }

    @Test
    void aCallGetsWhatTheLeaseHasFreeAndTheRestFromTheBudget() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(70, windows)).isTrue();

        assertThat(lease.holdFree(50, now)).isEqualTo(30);
        assertThat(lease.holdFree(50, now)).as("nothing free").isZero();
        lease.grantedAndHeld(20, now.plusSeconds(90));
        assertThat(lease.needs(0, windows).amount()).isEqualTo(120);
        assertThat(lease.grow(1, now)).as("all of it held").isFalse();
        assertThat(lease.grow(1, now.plusSeconds(80)))
                .as("valid for the new expiry")
                .isFalse();

        lease.unhold(30);
        assertThat(lease.grow(30, now.plusSeconds(80))).isTrue();
        assertThat(lease.holdFree(5, now.plusSeconds(90))).as("past its expiry").isZero();
    }

    @Test
    void aCallHoldingMoreThanItSpentGivesTheRestBackAndOneSpendingMoreShrinksTheLeaseByItsHoldOnly() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(40, windows)).isTrue();
        assertThat(lease.settle(40, 55, 0, now)).isEqualTo(40);

        assertThat(lease.take(60, windows)).isTrue();
        assertThat(lease.take(1, windows)).isFalse();
    }

    @Test
    void aRevokedLeaseShrinksByTheWholeHoldOfACallThatSettles() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(40, windows)).isTrue();
        assertThat(lease.take(10, windows)).isTrue();

        // It gives up what no call holds: $50, two slots and this minute's eight requests.
        assertThat(lease.revoke(windows.minute())).containsExactly(50, 2, 8);
        assertThat(lease.revoke(windows.minute().plusSeconds(60)))
                .as("permits of another minute")
                .containsExactly(0, 0, 0);
        assertThat(lease.settle(40, 5, 0, now)).isEqualTo(40);
        assertThat(lease.inUse()).isTrue();
        assertThat(lease.closeIfIdle(now, now)).as("a call still uses it").isEqualTo(-1);
        lease.settle(10, 0, 0, now);
        assertThat(lease.inUse()).isFalse();
        assertThat(lease.closeIfIdle(now, now)).isZero();
    }

    @Test
    void anIdleLeaseClosesOnceAndReturnsItsUnusedRequestsOfThisMinute() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(10, windows)).isTrue();
        lease.settle(10, 10, 0, now.plusSeconds(1));

        assertThat(lease.closeIfIdle(now, now.plusSeconds(2))).as("used since").isEqualTo(-1);
        assertThat(lease.closeIfIdle(now.plusSeconds(1), now.plusSeconds(2))).isEqualTo(9);
        assertThat(lease.closed()).isTrue();
        assertThat(lease.closeIfIdle(now.plusSeconds(5), now.plusSeconds(5)))
                .as("closed already")
                .isEqualTo(-1);

        LocalLease old = new LocalLease("bob", now);
        old.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(old.closeIfIdle(now, now.plusSeconds(60)))
                .as("last minute's requests are spent")
                .isZero();
    }

    @Test
    void aLeaseHoldingMoneyIsInUseAndNotIdle() {
        lease.granted(new LeaseRepository.Grant(100, 4, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(0, windows)).isTrue();
        assertThat(lease.inUse()).as("a slot").isTrue();
        assertThat(lease.closeIfIdle(now, now)).isEqualTo(-1);
        lease.settle(0, 0, 0, now);
        assertThat(lease.holdFree(10, now)).isEqualTo(10);
        assertThat(lease.inUse()).as("money").isTrue();
        assertThat(lease.closeIfIdle(now, now)).isEqualTo(-1);
    }

    @Test
    void whatIsNeededBeforeACallCanTakeFromTheLease() {
        assertThat(lease.needs(30, windows)).isEqualTo(new LocalLease.Needs(30, true, true, 0));
        assertThat(lease.needs(30, windows).nothing()).isFalse();

        lease.granted(new LeaseRepository.Grant(100, 1, 1, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.needs(100, windows).nothing()).isTrue();
        assertThat(lease.take(80, windows)).isTrue();
        assertThat(lease.needs(30, windows)).isEqualTo(new LocalLease.Needs(10, true, true, 100));
        assertThat(lease.needs(20, windows).money()).isZero();
        assertThat(new LocalLease.Needs(0, true, false, 0).nothing()).isFalse();
        assertThat(new LocalLease.Needs(0, false, true, 0).nothing()).isFalse();
        assertThat(new LocalLease.Needs(1, false, false, 0).nothing()).isFalse();
    }

    @Test
    void aLeaseRunsLowWhenAQuarterOfATopUpIsLeft() {
        lease.granted(new LeaseRepository.Grant(1_000, 4, 20, 0, 1_000), windows, now.plusSeconds(60));
        // A top-up ahead asks for 40 requests and 400 µ$: low at 10 requests or under 100 µ$ free.
        assertThat(lease.runningLow(40, 400, windows).nothing()).isTrue();

        for (int i = 0; i < 10; i++) {
            assertThat(lease.take(0, windows)).isTrue();
            lease.settle(0, 0, 0, now);
        }
        assertThat(lease.runningLow(40, 400, windows)).isEqualTo(new LocalLease.Needs(0, false, true, 1_000));
        assertThat(lease.take(901, windows)).isTrue();
        assertThat(lease.runningLow(40, 400, windows).money()).as("99 free").isEqualTo(400);
        assertThat(lease.runningLow(40, 396, windows).money())
                .as("99 free of a quarter of 396")
                .isZero();

        lease.refusedAhead();
        assertThat(lease.runningLow(40, 400, windows).nothing())
                .as("the calls ask from now on")
                .isTrue();
        lease.granted(new LeaseRepository.Grant(0, 0, 0, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.runningLow(40, 400, windows).nothing())
                .as("a granted top-up asks again")
                .isFalse();
        assertThat(lease.runningLow(40, 400, LimitWindows.at(now.plusSeconds(60), BudgetPeriod.MONTH))
                        .nothing())
                .as("a new minute's first call tops up")
                .isTrue();
        lease.revoke(windows.minute());
        assertThat(lease.runningLow(40, 400, windows).nothing()).isTrue();
    }

    @Test
    void theUsersRowIsShownWithoutWhatTheLeaseHoldsForCallsNotMadeYet() {
        var row = BudgetRows.of("alice", windows)
                .reserved(1_000)
                .inFlight(4)
                .spent(7)
                .row();
        lease.granted(new LeaseRepository.Grant(600, 3, 10, 0, 1_000), windows, now.plusSeconds(60));
        assertThat(lease.take(100, windows)).isTrue();

        var shown = lease.withoutUnused(row);
        assertThat(shown.reservedMicros()).isEqualTo(500);
        assertThat(shown.inFlight()).isEqualTo(2);
        assertThat(shown.spentMicros()).isEqualTo(7);
        assertThat(lease.withoutUnused(BudgetRows.of("alice", windows).row()).reservedMicros())
                .as("never negative")
                .isZero();
        assertThat(lease.withoutUnused(BudgetRows.of("alice", windows).row()).inFlight())
                .isZero();

        lease.lost();
        assertThat(lease.withoutUnused(row)).isSameAs(row);
    }

    @Test
    void tokensOfAnEarlierHourDoNotStopTheLease() {
        lease.granted(new LeaseRepository.Grant(1_000, 4, 10, 999, 1_000), windows, now.plusSeconds(3_600));
        assertThat(lease.take(10, windows)).isTrue();
        lease.settle(10, 10, 1, now);
        assertThat(lease.take(10, windows)).isFalse();

        LimitWindows nextHour = LimitWindows.at(Instant.parse("2026-03-14T11:00:10Z"), BudgetPeriod.MONTH);
        lease.granted(new LeaseRepository.Grant(0, 0, 1, 0, 1_000), nextHour, now.plusSeconds(3_600));
        assertThat(lease.take(10, nextHour)).isTrue();
    }
}
