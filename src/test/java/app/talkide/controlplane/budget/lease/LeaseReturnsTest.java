package app.talkide.controlplane.budget.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.StandInTransactions;
import app.talkide.controlplane.support.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * How leases go back, with stand-ins for the database: idle ones after two seconds, revoked ones once no
 * call uses them, recalled ones when another replica needs the money, dead replicas' after their TTL.
 */
class LeaseReturnsTest {

    final Instant start = Instant.parse("2026-03-14T10:20:30Z");
    final MutableClock clock = new MutableClock(start);
    final BudgetProperties properties = BudgetRows.properties();
    final LeaseRepository rows = mock(LeaseRepository.class);
    final BudgetRepository budgets = mock(BudgetRepository.class);
    final StandInTransactions transactions = new StandInTransactions();
    final BudgetLeases leases =
            new BudgetLeases(rows, budgets, properties, clock, transactions, new SimpleMeterRegistry());
    final LeaseReturns returns = new LeaseReturns(leases, rows, budgets, properties, clock, transactions);

    LimitWindows now() {
        return LimitWindows.at(clock.instant(), BudgetPeriod.MONTH);
    }

    /** Alice's lease after one call of 300 µ$ (granted $1, two slots, five requests), still running if asked. */
    LocalLease aliceCalled(boolean stillRunning) {
        when(budgets.find("alice"))
                .thenReturn(Optional.of(BudgetRows.of("alice", now()).row()));
        when(rows.grant(any(), any(), any(), anyLong(), anyBoolean(), any(), any(), any()))
                .thenReturn(true);
        LocalLease lease = leases.take("alice", 300, now());
        if (!stillRunning) {
            leases.settled(lease, 300, 300, 0);
        }
        return lease;
    }

    @Test
    void anUnusedLeaseGoesBackAtOnceWhenAskedAndOneInUseStays() {
        assertThat(returns.giveBackIfUnused("alice")).as("no lease").isFalse();

        LocalLease lease = aliceCalled(true);
        assertThat(returns.giveBackIfUnused("alice")).isFalse();
        assertThat(leases.current("alice")).isSameAs(lease);

        leases.settled(lease, 300, 300, 0);
        when(rows.giveBack("alice", leases.replica(), 4, now().minute())).thenReturn(true);
        assertThat(returns.giveBackIfUnused("alice")).isTrue();
        assertThat(leases.current("alice")).isNull();
        assertThat(lease.changing.isLocked()).isFalse();
    }

    @Test
    void aLeaseIdleSinceAnEarlierMinuteGoesBackWithNoRequestsAndAnExpiredOneReportsNothingGivenBack() {
        LocalLease lease = aliceCalled(false);
        clock.advance(Duration.ofSeconds(60));

        assertThat(returns.giveBackIfUnused("alice"))
                .as("the row had expired already")
                .isFalse();
        verify(rows).giveBack("alice", leases.replica(), 0, start.truncatedTo(java.time.temporal.ChronoUnit.MINUTES));
        assertThat(leases.current("alice")).isNull();
        assertThat(lease.changing.isLocked()).isFalse();
    }

    @Test
    void otherReplicasAreRecalledOnlyWhenWhatTheyHoldWouldLetTheCallFit() {
        assertThat(returns.recallOthers("alice", 100)).as("no row").isFalse();
        // $9 spent, $0.9 reserved of which other replicas hold $0.5: a $0.6 call fits once they give it back.
        when(budgets.find("alice"))
                .thenReturn(Optional.of(BudgetRows.of("alice", now())
                        .spent(9_000_000)
                        .reserved(900_000)
                        .row()));
        when(rows.heldByOthers("alice", leases.replica())).thenReturn(500_000L);
        when(rows.recall("alice", leases.replica())).thenReturn(1);

        assertThat(returns.recallOthers("alice", 600_000)).isTrue();
        assertThat(returns.recallOthers("alice", 600_001)).isFalse();

        when(rows.heldByOthers("alice", leases.replica())).thenReturn(0L);
        assertThat(returns.recallOthers("alice", 100))
                .as("no other replica holds any")
                .isFalse();
        when(rows.heldByOthers("alice", leases.replica())).thenReturn(500_000L);
        when(rows.recall("alice", leases.replica())).thenReturn(0);
        assertThat(returns.recallOthers("alice", 100))
                .as("they gave it back already")
                .isFalse();
    }

    @Test
    void aSweepGivesBackLeasesIdleForTwoSecondsAndRenewsThoseInUse() {
        LocalLease idle = aliceCalled(false);
        when(budgets.find("bob"))
                .thenReturn(Optional.of(BudgetRows.of("bob", now()).row()));
        LocalLease busy = leases.take("bob", 300, now());

        clock.advance(Duration.ofMillis(1_999));
        returns.sweep();
        assertThat(leases.current("alice")).as("idle for not quite two seconds").isSameAs(idle);

        clock.advance(Duration.ofMillis(1));
        returns.sweep();
        verify(rows).giveBack("alice", leases.replica(), 4, start.truncatedTo(java.time.temporal.ChronoUnit.MINUTES));
        assertThat(leases.current("alice")).isNull();
        assertThat(leases.current("bob")).isSameAs(busy);
        verify(rows, never()).renew(any(), any(), any());

        clock.set(start.plusSeconds(20));
        Instant expires = start.plusSeconds(80);
        when(rows.renew(leases.replica(), List.of("bob"), expires)).thenReturn(List.of());
        returns.sweep();
        verify(rows).renew(leases.replica(), List.of("bob"), expires);
        assertThat(busy.grow(1, start.plusSeconds(79))).as("renewed").isTrue();
    }

    @Test
    void aLeaseTheDatabaseLostIsDroppedAndItsCallsSettleWithoutIt() {
        LocalLease lease = aliceCalled(true);
        clock.set(start.plusSeconds(20));
        when(rows.renew(any(), any(), any())).thenReturn(List.of("alice"));

        returns.sweep();

        assertThat(lease.closed()).isTrue();
        assertThat(leases.current("alice")).isNull();
    }

    @Test
    void aRecalledLeaseGivesBackWhatNoCallHoldsAndGoesBackOnceItsCallsSettled() {
        LocalLease lease = aliceCalled(true);
        when(rows.recalled(leases.replica())).thenReturn(List.of("alice"));

        returns.sweep();
        verify(rows).giveBackPart("alice", leases.replica(), 999_700, 1, 4, now().minute());
        assertThat(lease.revoked()).isTrue();
        assertThat(lease.changing.isLocked()).isFalse();

        when(rows.recalled(leases.replica())).thenReturn(List.of());
        leases.settled(lease, 300, 100, 0);
        returns.sweep();
        verify(rows).giveBack("alice", leases.replica(), 0, now().minute());
        assertThat(leases.current("alice")).isNull();
    }

    @Test
    void aRecallOfAnIdleLeaseGivesItAllBackAndOfNoLeaseClearsTheFlag() {
        LocalLease lease = aliceCalled(false);
        when(rows.recalled(leases.replica())).thenReturn(List.of("alice", "bob"));
        // Idle since an earlier minute, whose requests are spent: the lease still goes back, with none.
        Instant leasedIn = now().minute();
        clock.advance(Duration.ofSeconds(60));

        returns.sweep();

        verify(rows).giveBack("alice", leases.replica(), 0, leasedIn);
        verify(rows).giveBackPart("bob", leases.replica(), 0, 0, 0, Instant.EPOCH);
        assertThat(leases.current("alice")).isNull();
        assertThat(lease.changing.isLocked()).isFalse();
    }

    @Test
    void aReplicaWithoutLeasesDoesNotLookForRecalls() {
        returns.sweep();

        verify(rows, never()).recalled(any());
    }

    @Test
    void newSettingsRevokeThisReplicasLeaseAndWaitForTheOthers() {
        LocalLease lease = aliceCalled(true);
        when(rows.unanswered("alice", leases.replica())).thenReturn(2, 1, 0);

        assertThat(returns.revokeEverywhere("alice", Duration.ofSeconds(5))).isZero();
        assertThat(lease.revoked()).isTrue();

        when(rows.unanswered("alice", leases.replica())).thenReturn(1);
        assertThat(returns.revokeEverywhere("alice", Duration.ZERO))
                .as("a replica that is down")
                .isEqualTo(1);

        returns.revokeOthers("alice");
        verify(rows).revokeOthers("alice", leases.replica());
    }

    @Test
    void withLeasesOffThereIsNothingToRevokeOrRecall() {
        var base = BudgetRows.properties(Enforcement.HARD);
        var off = new BudgetProperties(
                base.defaultLimitMicros(),
                base.period(),
                base.enforcement(),
                base.reservationTtl(),
                base.expiryInterval(),
                base.fairUse(),
                new BudgetProperties.Lease(false, 1, 1, 1, 1, Duration.ofSeconds(1), Duration.ofSeconds(1)));
        var noLeases = new LeaseReturns(leases, rows, budgets, off, clock, transactions);
        when(rows.unanswered(any(), any())).thenReturn(1);
        when(budgets.find("alice"))
                .thenReturn(Optional.of(
                        BudgetRows.of("alice", now()).spent(9_999_999).row()));
        when(rows.heldByOthers(any(), any())).thenReturn(500_000L);
        when(rows.recall(any(), any())).thenReturn(1);

        assertThat(noLeases.revokeEverywhere("alice", Duration.ZERO)).isZero();
        assertThat(noLeases.recallOthers("alice", 1)).isFalse();
    }

    @Test
    void deadReplicasLeasesGoBackUnlessAnotherReplicaGaveThemBackFirst() {
        var first = new LeaseRepository.ExpiredLease("alice", "dead-1");
        var second = new LeaseRepository.ExpiredLease("bob", "dead-1");
        var third = new LeaseRepository.ExpiredLease("carol", "dead-1");
        when(rows.expired(start, 500)).thenReturn(List.of(first, second, third));
        when(rows.expireIfStill(second, start)).thenReturn(true);
        when(rows.expireIfStill(third, start)).thenReturn(true);

        assertThat(returns.expireDead()).isEqualTo(2);
    }
}
