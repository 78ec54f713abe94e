package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.StandInTransactions;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseBooks;
import app.talkide.controlplane.budget.lease.LeaseReturns;
import app.talkide.controlplane.budget.lease.LocalLease;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where a call's money comes from, with stand-ins for the database: the replica's lease first, else a
 * reservation row checked on the user's row; a refusal for money other leases hold waits for them.
 */
class CallReservationsTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final Instant expiry = now.plusSeconds(30 * 60);
    final BudgetProperties properties = BudgetRows.properties();
    final BudgetRepository budgets = mock(BudgetRepository.class);
    final ReservationRepository rows = mock(ReservationRepository.class);
    final BudgetLeases leases = mock(BudgetLeases.class);
    final LeaseReturns returns = mock(LeaseReturns.class);
    final StandInTransactions transactions = new StandInTransactions();
    final CallReservations reservations = new CallReservations(
            budgets, rows, leases, returns, properties, Clock.fixed(now, ZoneOffset.UTC), transactions);

    void spent(long micros) {
        when(budgets.find("alice"))
                .thenReturn(Optional.of(
                        BudgetRows.of("alice", windows).spent(micros).row()));
    }

    @Test
    void aCallTheLeaseCoversIsReservedFromItWithoutTheDatabase() {
        LocalLease lease = LeaseBooks.holding("alice", 500, windows);
        when(leases.take("alice", 500, windows)).thenReturn(lease);

        Reserved reserved = (Reserved) reservations.reserve("alice", 500);

        assertThat(reserved.reservation().lease()).isSameAs(lease);
        assertThat(reserved.reservation().amountMicros()).isEqualTo(500);
        assertThat(reserved.reservation().userId()).isEqualTo("alice");
        verify(budgets, never()).reserve(any(), anyLong(), any(), any());
    }

    @Test
    void withoutALeaseTheCallGetsAReservationRowOfItsOwn() {
        when(budgets.reserve("alice", 500, properties.defaultLimits(), windows)).thenReturn(true);

        Reserved reserved = (Reserved) reservations.reserve("alice", 500);

        assertThat(reserved.reservation().lease()).isNull();
        assertThat(reserved.reservation().amountMicros()).isEqualTo(500);
        verify(budgets).commitWithoutWaitingForDisk();
        verify(rows).insert(reserved.reservation().id(), "alice", 500, now, expiry);
        assertThat(transactions.commits).isEqualTo(1);
    }

    @Test
    void whereTheDatabaseCanItReservesInOneStatement() {
        when(budgets.reservesInOneStatement()).thenReturn(true);
        when(budgets.reserveWithRecord(
                        any(), eq("alice"), eq(500L), eq(properties.defaultLimits()), eq(windows), eq(expiry)))
                .thenReturn(true);

        Reserved reserved = (Reserved) reservations.reserve("alice", 500);

        verify(budgets)
                .reserveWithRecord(
                        reserved.reservation().id(), "alice", 500, properties.defaultLimits(), windows, expiry);
        verify(rows, never()).insert(any(), any(), anyLong(), any(), any());

        when(budgets.reserveWithRecord(any(), any(), anyLong(), any(), any(), any()))
                .thenReturn(false);
        spent(10_000_000);
        assertThat(reservations.reserve("alice", 500)).isInstanceOf(Denied.class);
    }

    @Test
    void aNewUsersRowIsCreatedOnTheirFirstCall() {
        when(budgets.reserve("alice", 500, properties.defaultLimits(), windows)).thenReturn(false, true);

        assertThat(reservations.reserve("alice", 500)).isInstanceOf(Reserved.class);
        verify(budgets).createIfAbsent("alice", windows);
    }

    @Test
    @Timeout(10) // the loop this guards against would otherwise hang the suite, not fail it
    void aUsersRowThatKeepsVanishingEndsInBusyNotAnEndlessLoop() {
        // budgets.find answers empty every time, as if the row were deleted as soon as it is created.
        assertThat(reservations.reserve("alice", 500)).isEqualTo(BudgetDenials.busy());
        verify(budgets, times(3)).createIfAbsent("alice", windows);
    }

    @Test
    void aRefusalSaysWhichLimitAndARefusalNothingExplainsIsTriedThreeTimes() {
        spent(10_000_000);
        Denied denied = (Denied) reservations.reserve("alice", 500);
        assertThat(denied.reason()).isEqualTo(DenialReason.SPENDING_LIMIT);

        spent(0);
        assertThat(reservations.reserve("alice", 500)).isEqualTo(BudgetDenials.busy());
        verify(budgets, times(4)).reserve("alice", 500, properties.defaultLimits(), windows);
        verify(returns, times(1)).giveBackIfUnused("alice"); // a fair-use refusal gives no lease back
    }

    @Test
    void aCallRefusedForMoneyItsOwnIdleLeaseHoldsAsksAgainOnceItWentBack() {
        spent(9_999_999);
        when(budgets.reserve("alice", 500, properties.defaultLimits(), windows)).thenReturn(false, true);
        when(returns.giveBackIfUnused("alice")).thenReturn(true);

        assertThat(reservations.reserve("alice", 500)).isInstanceOf(Reserved.class);
        verify(returns, never()).recallOthers(any(), anyLong());
    }

    @Test
    void aCallRefusedForMoneyOtherLeasesHoldWaitsForThemToGiveItBack() {
        spent(9_999_999);
        when(budgets.reserve("alice", 500, properties.defaultLimits(), windows)).thenReturn(false, true);
        when(returns.recallOthers("alice", 500)).thenReturn(true);

        assertThat(reservations.reserve("alice", 500)).isInstanceOf(Reserved.class);
    }

    @Test
    void aCallRefusedWhenNoOtherLeaseHoldsMoneyIsRefusedAtOnce() {
        spent(9_999_999);

        assertThat(reservations.reserve("alice", 500)).isInstanceOf(Denied.class);
        verify(returns).recallOthers("alice", 500);
        verify(budgets, times(1)).reserve(any(), anyLong(), any(), any());
    }

    @Test
    void anEstimateGrowsTheReservationRowAndTheUsersRowTogether() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        when(rows.grow(reservation.id(), 99, expiry)).thenReturn(true);
        when(budgets.grow("alice", 99, 10_000_000, windows, false)).thenReturn(true);

        assertThat(reservations.cover(reservation, 99)).isTrue();
        assertThat(reservation.amountMicros()).isEqualTo(100);
        verify(budgets).commitWithoutWaitingForDisk();
    }

    @Test
    void aReservationThatExpiredOrDoesNotFitDoesNotGrow() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        when(budgets.grow(any(), anyLong(), anyLong(), any(), anyBoolean())).thenReturn(true);

        assertThat(reservations.growInDatabase(reservation, 99, false))
                .as("its row expired")
                .isFalse();
        verify(budgets, never()).grow(any(), anyLong(), anyLong(), any(), anyBoolean());

        when(rows.grow(reservation.id(), 99, expiry)).thenReturn(true);
        when(budgets.grow("alice", 99, 10_000_000, windows, false)).thenReturn(false);
        assertThat(reservations.growInDatabase(reservation, 99, false)).isFalse();
        assertThat(reservation.amountMicros()).isEqualTo(1);
        assertThat(transactions.rollbacks).isEqualTo(2);

        when(budgets.grow("alice", 99, 10_000_000, windows, true)).thenReturn(true);
        assertThat(reservations.growInDatabase(reservation, 99, true)).isTrue();
        assertThat(reservation.overrun()).isTrue();
    }

    @Test
    void anEstimateOfALeasedCallGrowsInTheLease() {
        LocalLease lease = LeaseBooks.holding("alice", 1, windows);
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1, lease);
        when(leases.grow(lease, 99, false)).thenReturn(true);

        assertThat(reservations.cover(reservation, 99)).isTrue();
        assertThat(reservation.amountMicros()).isEqualTo(100);
        assertThat(reservation.overrun()).isFalse();
    }

    @Test
    void anEstimateTheLeaseCannotCoverIsRefusedWhenNoOtherReplicaHoldsMoney() {
        LocalLease lease = LeaseBooks.holding("alice", 1, windows);
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1, lease);
        when(returns.giveBackIfUnused("alice")).thenReturn(true);

        assertThat(reservations.cover(reservation, 99)).isFalse();
        assertThat(reservation.amountMicros()).isEqualTo(1);
        verify(returns, never()).giveBackIfUnused(any());
    }

    @Test
    void anEstimateFitsOnceTheOwnIdleLeaseWentBack() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        when(rows.grow(reservation.id(), 99, expiry)).thenReturn(true);
        when(budgets.grow("alice", 99, 10_000_000, windows, false)).thenReturn(false, true);
        when(returns.giveBackIfUnused("alice")).thenReturn(true);

        assertThat(reservations.cover(reservation, 99)).isTrue();
        verify(returns, never()).recallOthers(any(), anyLong());
    }

    @Test
    void anEstimateWaitsForOtherReplicasToGiveBackWhatItNeeds() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        when(rows.grow(reservation.id(), 99, expiry)).thenReturn(true);
        when(budgets.grow("alice", 99, 10_000_000, windows, false)).thenReturn(false, true);
        when(returns.recallOthers("alice", 99)).thenReturn(true);

        assertThat(reservations.cover(reservation, 99)).isTrue();
        assertThat(reservation.amountMicros()).isEqualTo(100);
    }
}
