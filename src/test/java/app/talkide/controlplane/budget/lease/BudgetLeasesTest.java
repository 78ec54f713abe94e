package app.talkide.controlplane.budget.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
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
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * This replica's lease book with stand-ins for the database: calls are admitted from memory once a top-up
 * sized by the user's row was granted, a running call grows from the lease or exactly from the budget.
 */
class BudgetLeasesTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final Instant expires = now.plusSeconds(60);
    final BudgetProperties properties = BudgetRows.properties();
    final LeaseRepository rows = mock(LeaseRepository.class);
    final BudgetRepository budgets = mock(BudgetRepository.class);
    final StandInTransactions transactions = new StandInTransactions();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final BudgetLeases leases = leases(properties);

    BudgetLeases leases(BudgetProperties properties) {
        return new BudgetLeases(rows, budgets, properties, Clock.fixed(now, ZoneOffset.UTC), transactions, meters);
    }

    double topUps(String when) {
        return meters.get("talkide.budget.lease.topups")
                .tag("when", when)
                .counter()
                .count();
    }

    void aliceHasSpent(long micros) {
        when(budgets.find("alice"))
                .thenReturn(Optional.of(
                        BudgetRows.of("alice", windows).spent(micros).row()));
    }

    void theBudgetGrants() {
        when(rows.grant(any(), any(), any(), anyLong(), anyBoolean(), any(), any(), any()))
                .thenReturn(true);
    }

    @Test
    void theFirstCallTopsUpTheLeaseAndTheNextIsAdmittedFromMemory() {
        aliceHasSpent(0);
        theBudgetGrants();

        LocalLease lease = leases.take("alice", 300, windows);
        assertThat(lease).isNotNull();
        assertThat(leases.take("alice", 300, windows)).isSameAs(lease);

        var grant = new LeaseRepository.Grant(1_000_000, 2, 5, 0, 1_000);
        verify(rows).lock("alice", leases.replica(), windows, expires);
        verify(rows)
                .grant(
                        "alice",
                        leases.replica(),
                        grant,
                        2_000_000,
                        false,
                        properties.defaultLimits(),
                        windows,
                        expires);
        verify(budgets).commitWithoutWaitingForDisk();
        assertThat(topUps("needed")).isEqualTo(1);
        assertThat(leases.owns(lease)).isTrue();
        assertThat(leases.current("alice")).isSameAs(lease);
        assertThat(leases.all()).containsExactly(lease);
        // Four of its five requests left: a quarter of a top-up's 60 or fewer, so it asks for more ahead.
        assertThat(leases.topUpsAhead().any()).isTrue();
        assertThat(lease.changing.isLocked()).as("never left locked").isFalse();
    }

    @Test
    void aUserNearTheLimitOrWithoutARowIsNotLeasedTo() {
        assertThat(leases.take("alice", 300, windows)).as("no row yet").isNull();

        aliceHasSpent(7_999_999);
        assertThat(leases.take("alice", 300, windows)).as("within the floor").isNull();
        verify(rows, never()).lock(any(), any(), any(), any());
    }

    @Test
    void aGrantTheRowNoLongerHasIsRolledBack() {
        aliceHasSpent(0);

        assertThat(leases.take("alice", 300, windows)).isNull();
        assertThat(transactions.rollbacks).isEqualTo(1);
        assertThat(meters.find("talkide.budget.lease.topups")
                        .tag("when", "needed")
                        .counter()
                        .count())
                .isZero();
    }

    @Test
    void withLeasesOffEveryCallReservesOnItsOwn() {
        var base = BudgetRows.properties(Enforcement.HARD);
        var off = new BudgetProperties(
                base.defaultLimitMicros(),
                base.period(),
                base.enforcement(),
                base.reservationTtl(),
                base.expiryInterval(),
                base.fairUse(),
                new BudgetProperties.Lease(false, 1, 1, 1, 1, Duration.ofSeconds(1), Duration.ofSeconds(1)));
        aliceHasSpent(0);
        theBudgetGrants();

        assertThat(leases(off).take("alice", 300, windows)).isNull();
    }

    @Test
    void theUserSeesTheirRowWithoutWhatTheLeaseHoldsForCallsNotMadeYet() {
        aliceHasSpent(0);
        theBudgetGrants();
        var row =
                BudgetRows.of("alice", windows).reserved(1_000_000).inFlight(2).row();
        assertThat(leases.asShown(row)).isSameAs(row);

        leases.take("alice", 300, windows);
        assertThat(leases.asShown(row).reservedMicros()).isEqualTo(300);
        assertThat(leases.asShown(row).inFlight()).isEqualTo(1);
    }

    @Test
    void aRunningCallGrowsFromTheLeaseAndTopsItUpWhenItRunsDry() {
        aliceHasSpent(0);
        theBudgetGrants();
        LocalLease lease = leases.take("alice", 300, windows);

        assertThat(leases.grow(lease, 999_700, false)).isTrue();
        assertThat(topUps("needed")).isEqualTo(1);
        assertThat(leases.grow(lease, 100, false))
                .as("topped up with money only")
                .isTrue();
        assertThat(topUps("needed")).isEqualTo(2);
        assertThat(lease.changing.isLocked()).isFalse();
        verify(rows)
                .grant(
                        eq("alice"),
                        any(),
                        eq(new LeaseRepository.Grant(1_000_000, 0, 0, 0, 1_000)),
                        eq(2_000_000L),
                        eq(false),
                        any(),
                        any(),
                        any());
    }

    @Test
    void whatTheLeaseCannotCoverComesExactlyFromTheBudgetAndPastTheLimitOnlyWhenForced() {
        aliceHasSpent(0);
        theBudgetGrants();
        LocalLease lease = leases.take("alice", 300, windows);
        aliceHasSpent(10_000_000);
        when(rows.grant(any(), any(), any(), anyLong(), anyBoolean(), any(), any(), any()))
                .thenReturn(false);

        assertThat(leases.grow(lease, 2_000_000, false)).isFalse();
        assertThat(lease.holdFree(1, now)).as("what it had free was given back").isEqualTo(1);
        lease.unhold(1);
        assertThat(transactions.rollbacks).as("the refused grant").isEqualTo(1);
        assertThat(lease.changing.isLocked()).isFalse();

        var exact = new LeaseRepository.Grant(1_000_300, 0, 0, 0, Long.MAX_VALUE);
        when(rows.grant("alice", leases.replica(), exact, 0, true, properties.defaultLimits(), windows, expires))
                .thenReturn(true);
        assertThat(leases.grow(lease, 2_000_000, true)).isTrue();
        assertThat(lease.holdFree(1, now)).as("all of it held for the call").isZero();
        assertThat(lease.needs(0, windows).amount())
                .as("the lease grew by the rest")
                .isEqualTo(2_000_300);
        assertThat(lease.changing.isLocked()).isFalse();
        assertThat(leases.settled(lease, 2_000_300, 2_000_300, 10)).isEqualTo(2_000_300);
    }

    @Test
    void aForcedGrowthTheLeaseHasFreeNeedsNoStatement() {
        aliceHasSpent(0);
        theBudgetGrants();
        LocalLease lease = leases.take("alice", 300, windows);

        assertThat(leases.grow(lease, 1_000, true)).isTrue();
        verify(rows, never()).grant(any(), any(), any(), anyLong(), eq(true), any(), any(), any());
        assertThat(lease.changing.isLocked()).isFalse();
        lease.lost();
        assertThat(leases.grow(lease, 1_000, true)).as("a lost lease").isFalse();
        assertThat(leases.grow(lease, 1_000, false)).isFalse();
    }

    @Test
    void aRevokedLeaseSendsCallsToTheDatabaseAndAGoneOneIsReplaced() {
        aliceHasSpent(0);
        theBudgetGrants();
        LocalLease lease = leases.take("alice", 300, windows);
        lease.revoke(windows.minute());

        assertThat(leases.take("alice", 300, windows)).isNull();
        // Its running calls still grow, each by exactly what it asks, decided in the database.
        assertThat(leases.grow(lease, 7, false)).isTrue();
        verify(rows)
                .grant(
                        "alice",
                        leases.replica(),
                        new LeaseRepository.Grant(7, 0, 0, 0, Long.MAX_VALUE),
                        0,
                        false,
                        properties.defaultLimits(),
                        windows,
                        expires);

        leases.forget(lease);
        assertThat(leases.owns(lease)).isFalse();
        LocalLease closed = leases.take("alice", 300, windows);
        closed.lost();
        LocalLease next = leases.take("alice", 300, windows);
        assertThat(next).isNotNull().isNotSameAs(closed);
        assertThat(lease.changing.isLocked()).isFalse();
        assertThat(closed.changing.isLocked()).isFalse();
    }

    @Test
    void settlementsShrinkTheLeaseRowsInOneStatement() {
        assertThat(leases.shrink(List.of())).isEmpty();
        verify(rows, never()).shrink(any(), any());

        var shrinks = List.of(new BudgetLeases.Shrink("alice", 5));
        when(rows.shrink(shrinks, leases.replica())).thenReturn(new boolean[] {true});
        assertThat(leases.shrink(shrinks)).containsExactly(true);
    }

    @Test
    void onShutdownIdleLeasesGoBackAndThoseInUseExpire() {
        aliceHasSpent(0);
        theBudgetGrants();
        when(budgets.find("bob"))
                .thenReturn(Optional.of(BudgetRows.of("bob", windows).row()));
        leases.take("alice", 300, windows);
        LocalLease bob = leases.take("bob", 300, windows);
        leases.settled(bob, 300, 0, 0);

        leases.destroy();

        verify(rows).giveBack("bob", leases.replica(), 4, windows.minute());
        verify(rows, never()).giveBack(eq("alice"), any(), any(Integer.class), any());
        assertThat(leases.all()).isEmpty();
    }
}
