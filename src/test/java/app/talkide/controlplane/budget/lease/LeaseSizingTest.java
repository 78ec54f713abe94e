package app.talkide.controlplane.budget.lease;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.lease.LeaseRepository.Grant;
import app.talkide.controlplane.budget.lease.LocalLease.Needs;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A replica leases at most half of what a user has free (money above the $2 floor, slots, requests), so
 * other replicas and per-call reservations always find the rest; near a limit it leases nothing.
 */
class LeaseSizingTest {

    final LimitWindows now = LimitWindows.at(Instant.parse("2026-03-14T10:20:30Z"), BudgetPeriod.MONTH);
    // $10 limit, $2 floor, at most $1 a top-up; 4 calls at once; 10 a minute; 1000 tokens an hour.
    final BudgetProperties properties = BudgetRows.properties();

    static Needs money(long micros) {
        return new Needs(micros, false, false, 0);
    }

    static final Needs EVERYTHING = new Needs(100, true, true, 0);
    static final Needs SLOT = new Needs(0, true, false, 0);
    static final Needs PERMIT = new Needs(0, false, true, 0);

    BudgetRows alice() {
        return BudgetRows.of("alice", now);
    }

    Grant grant(BudgetRows row, Needs needs) {
        return LeaseSizing.grant(row.row(), needs, now, properties);
    }

    @Test
    void aFreshUserLeasesAtMostOneTopUpsWorthAndHalfTheSlotsAndRequests() {
        assertThat(grant(alice(), EVERYTHING)).isEqualTo(new Grant(1_000_000, 2, 5, 0, 1_000));
        assertThat(grant(alice().limit(100_000_000), money(100)).micros()).isEqualTo(1_000_000);
    }

    @Test
    void nearTheLimitALeaseTakesHalfOfWhatIsLeftAboveTheFloor() {
        // $10 - $6.50 spent - $0.50 held - $2 floor: $1 above the floor, half of it leased.
        var row = alice().spent(6_500_000).reserved(500_000);

        assertThat(grant(row, money(100)).micros()).isEqualTo(500_000);
        assertThat(grant(row, money(800_000)).micros())
                .as("what the call needs, if more")
                .isEqualTo(800_000);
        assertThat(grant(row, money(1_000_000)).micros()).isEqualTo(1_000_000);
        assertThat(grant(row, money(1_000_001)))
                .as("the floor is for per-call reservations")
                .isNull();
    }

    @Test
    void aLeaseNeedingNoMoneyTakesNoneEvenOfASpentBudget() {
        assertThat(grant(alice().spent(10_000_000), SLOT)).isEqualTo(new Grant(0, 2, 0, 0, 1_000));
    }

    @Test
    void slotsAreHalfOfThoseFreeAndAtLeastOne() {
        assertThat(grant(alice().inFlight(2), SLOT).slots()).isEqualTo(1);
        assertThat(grant(alice().inFlight(3), SLOT)).isNull();
        assertThat(grant(alice().maxConcurrent(40), SLOT).slots())
                .as("at most max-slots")
                .isEqualTo(8);
        assertThat(grant(alice().inFlight(4), money(100)).slots())
                .as("not asked for")
                .isZero();
    }

    @Test
    void requestsAreHalfOfThoseLeftThisMinute() {
        assertThat(grant(alice().minute(now.minute(), 8), PERMIT).permits()).isEqualTo(1);
        assertThat(grant(alice().minute(now.minute(), 9), PERMIT)).isNull();
        assertThat(grant(alice().minute(now.minute().minusSeconds(60), 10), PERMIT)
                        .permits())
                .as("last minute's requests do not count")
                .isEqualTo(5);
        assertThat(grant(alice().requestsPerMinute(1_000), PERMIT).permits())
                .as("at most max-permits")
                .isEqualTo(60);
        assertThat(grant(alice().minute(now.minute(), 10), SLOT).permits())
                .as("not asked for")
                .isZero();
    }

    @Test
    void aUserAtTheirTokensPerHourLeasesNothing() {
        assertThat(grant(alice().hour(now.hour(), 1_000), SLOT)).isNull();
        assertThat(grant(alice().hour(now.hour(), 999), SLOT)).isEqualTo(new Grant(0, 2, 0, 999, 1_000));
        assertThat(grant(alice().hour(now.hour().minusSeconds(3_600), 5_000), SLOT)
                        .hourTokens())
                .as("last hour's tokens do not count")
                .isZero();
        assertThat(grant(alice().tokensPerHour(2_000).hour(now.hour(), 1_000), SLOT))
                .isEqualTo(new Grant(0, 2, 0, 1_000, 2_000));
    }
}
