package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRepository.Settled;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.BudgetLeases.Shrink;
import app.talkide.controlplane.budget.lease.LeaseBooks;
import app.talkide.controlplane.budget.lease.LeaseTopUpsAhead;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * What one settlement commit books, with stand-ins for the database: each user's cost, what their calls
 * gave back, slots and tokens in one update per user, in user order, and a top-up riding along in that order.
 */
class SettlementCommitTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final BudgetRepository budgets = mock(BudgetRepository.class);
    final ReservationRepository reservations = mock(ReservationRepository.class);
    final UsageRecordRepository usage = mock(UsageRecordRepository.class);
    final BudgetLeases leases = mock(BudgetLeases.class);
    final SettlementCommit commit = new SettlementCommit(
            budgets, reservations, usage, leases, BudgetRows.properties(), Clock.fixed(now, ZoneOffset.UTC));
    final List<List<Settled>> settled = new ArrayList<>();

    SettlementCommitTest() {
        // The commit reuses its list after each statement: keep what each statement got.
        doAnswer(call -> settled.add(List.copyOf(call.<List<Settled>>getArgument(0))))
                .when(budgets)
                .settle(any(), eq(windows));
    }

    SettlementWriter.Pending pending(UsageRecord record, Reservation reservation, long leaseShrink) {
        return new SettlementWriter.Pending(record, reservation, leaseShrink, new CompletableFuture<>());
    }

    SettlementWriter.Pending ownReservation(String user, long held, long cost) {
        return pending(CompletedCalls.of(user, cost, now), new Reservation(UUID.randomUUID(), user, held), 0);
    }

    SettlementWriter.Pending leased(String user, long held, long cost, long shrink) {
        var lease = LeaseBooks.holding(user, held, windows);
        return pending(
                CompletedCalls.of(user, cost, now), new Reservation(UUID.randomUUID(), user, held, lease), shrink);
    }

    @Test
    void eachUserIsBookedOnceInUserOrderAndOnlyReservationsStillTheirsAreGivenBack() {
        var bob = ownReservation("bob", 500, 300);
        var alice = ownReservation("alice", 400, 100);
        var aliceAgain = ownReservation("alice", 200, 50);
        var denied = pending(CompletedCalls.of("carol", 0, now), null, 0);
        when(reservations.delete(any())).thenReturn(new boolean[] {true, false, true});

        commit.apply(List.of(bob, alice, aliceAgain, denied), List.of());

        verify(usage).insertAll(List.of(bob.record(), alice.record(), aliceAgain.record(), denied.record()));
        verify(reservations)
                .delete(List.of(
                        bob.reservation().id(),
                        alice.reservation().id(),
                        aliceAgain.reservation().id()));
        // Alice's first reservation was released by expiry already: only its cost is booked.
        assertThat(settled)
                .containsExactly(List.of(new Settled("alice", 150, 200, 1, 40), new Settled("bob", 300, 500, 1, 20)));
        verify(leases, never()).shrink(any());
    }

    @Test
    void aLeasedCallShrinksItsLeaseAndGivesBackWhatItSpentOnlyIfTheLeaseIsStillThere() {
        var alice = leased("alice", 400, 100, 100);
        var bob = leased("bob", 400, 300, 300);
        var carol = leased("carol", 400, 0, 0);
        when(leases.shrink(any())).thenReturn(new boolean[] {true, false});

        commit.apply(List.of(bob, carol, alice), List.of());

        verify(leases).shrink(List.of(new Shrink("alice", 100), new Shrink("bob", 300)));
        verify(reservations, never()).delete(any());
        assertThat(settled)
                .containsExactly(List.of(
                        new Settled("alice", 100, 100, 0, 20),
                        new Settled("bob", 300, 0, 0, 20),
                        new Settled("carol", 0, 0, 0, 20)));
    }

    @Test
    void anOverrunIsRecordedWithHowFarTheSettledSpendPassedTheLimit() {
        var soft = ownReservation("alice", 400, 900);
        soft.reservation().grew(500, true);
        when(reservations.delete(any())).thenReturn(new boolean[] {true});
        when(budgets.find("alice"))
                .thenReturn(Optional.of(BudgetRows.of("alice", windows)
                        .limit(1_000)
                        .spent(1_250)
                        .row()));
        var within = ownReservation("bob", 400, 900);
        within.reservation().grew(500, true);
        when(budgets.find("bob"))
                .thenReturn(Optional.of(BudgetRows.of("bob", windows).spent(900).row()));

        commit.apply(List.of(soft), List.of());
        commit.apply(List.of(within), List.of());

        verify(usage).insert(soft.record(), 250);
        verify(usage).insert(within.record(), 0);
        verify(usage, never()).insertAll(List.of(soft.record()));
        var inOrder = inOrder(budgets, usage);
        inOrder.verify(budgets).settle(any(), any());
        inOrder.verify(usage).insert(eq(soft.record()), anyLong());
    }

    @Test
    void anOverrunOfAUserWithoutARowCountsNothingPastTheLimit() {
        var soft = ownReservation("alice", 400, 900);
        soft.reservation().grew(500, true);
        when(reservations.delete(any())).thenReturn(new boolean[] {true});

        commit.apply(List.of(soft), List.of());

        verify(usage).insert(soft.record(), 0);
    }

    @Test
    void aTopUpRidingAlongLocksAndGrantsInUserOrderAmongTheSettlements() {
        var alice = leased("alice", 400, 100, 100);
        var carol = leased("carol", 400, 100, 100);
        when(leases.shrink(any())).thenReturn(new boolean[] {true});
        var bobTopUp = topUp("bob", true);
        var unwanted = topUp("dave", false);

        commit.apply(List.of(carol, alice), List.of(bobTopUp, unwanted));

        InOrder inOrder = inOrder(leases, bobTopUp, budgets);
        inOrder.verify(leases).shrink(List.of(new Shrink("alice", 100)));
        inOrder.verify(bobTopUp).lockRow();
        inOrder.verify(leases).shrink(List.of(new Shrink("carol", 100)));
        inOrder.verify(budgets).settle(any(), any());
        inOrder.verify(bobTopUp).grant();
        inOrder.verify(budgets).settle(any(), any());
        assertThat(settled)
                .containsExactly(
                        List.of(new Settled("alice", 100, 100, 0, 20)), List.of(new Settled("carol", 100, 100, 0, 20)));
        verify(unwanted, never()).lockRow();
        verify(unwanted, never()).grant();
    }

    LeaseTopUpsAhead.TopUp topUp(String user, boolean wanted) {
        LeaseTopUpsAhead.TopUp topUp = mock(LeaseTopUpsAhead.TopUp.class);
        when(topUp.userId()).thenReturn(user);
        when(topUp.wanted()).thenReturn(wanted);
        return topUp;
    }
}
