package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.BudgetDecision.Reserved;
import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.StandInTransactions;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseBooks;
import app.talkide.controlplane.budget.lease.LeaseReturns;
import app.talkide.controlplane.budget.lease.LocalLease;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The budget service's decisions without a database (stand-ins for the repositories, the lease book and
 * the settlement writer): estimates, soft and hard limits on a running call, settlement, expiry, settings.
 */
class UserBudgetServiceDecisionsTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final BudgetRepository budgets = mock(BudgetRepository.class);
    final ReservationRepository reservationRows = mock(ReservationRepository.class);
    final BudgetLeases leases = mock(BudgetLeases.class);
    final LeaseReturns returns = mock(LeaseReturns.class);
    final CallReservations reservations = mock(CallReservations.class);
    final SettlementWriter settlements = mock(SettlementWriter.class);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final StandInTransactions transactions = new StandInTransactions();

    UserBudgetService service(Enforcement byDefault) {
        when(leases.asShown(any())).thenAnswer(call -> call.getArgument(0));
        return new UserBudgetService(
                budgets,
                reservationRows,
                leases,
                returns,
                reservations,
                settlements,
                BudgetRows.properties(byDefault),
                Clock.fixed(now, ZoneOffset.UTC),
                transactions,
                meters);
    }

    final UserBudgetService service = service(Enforcement.HARD);

    double denials(String reason) {
        var counter =
                meters.find("talkide.budget.denials").tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    void userRow(BudgetRows row) {
        when(budgets.find("alice")).thenReturn(Optional.of(row.row()));
    }

    /** The database grows a reservation as asked, past the limit only when told to. */
    void databaseGrantsOnly(boolean pastTheLimit) {
        doAnswer(call -> {
                    boolean past = call.getArgument(2);
                    if (past != pastTheLimit) {
                        return false;
                    }
                    Reservation reservation = call.getArgument(0);
                    reservation.grew(call.getArgument(1), past);
                    return true;
                })
                .when(reservations)
                .growInDatabase(any(), anyLong(), any(Boolean.class));
    }

    @Test
    void anAdmittedCallHoldsOneMicroDollarAndARefusalIsCounted() {
        var denied = new Denied(DenialReason.SPENDING_LIMIT, "spent", null, false);
        when(reservations.reserve("alice", 1)).thenReturn(denied);
        var reserved = new Reserved(new Reservation(UUID.randomUUID(), "bob", 1));
        when(reservations.reserve("bob", 1)).thenReturn(reserved);

        assertThat(service.reserveSlot("alice")).isSameAs(denied);
        assertThat(service.reserveSlot("bob")).isSameAs(reserved);
        assertThat(denials("spending_limit")).isEqualTo(1);
    }

    @Test
    void anEstimateBelowWhatIsHeldNeedsNothingMore() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 500);

        assertThat(service.reserveEstimate(reservation, 500)).isEmpty();
        assertThat(service.reserveEstimate(reservation, 100)).isEmpty();
        verify(reservations, never()).cover(any(), anyLong());
    }

    @Test
    void anEstimateIsCoveredForWhatItAddsAndARefusalSaysWhy() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        when(reservations.cover(reservation, 4_999_999)).thenReturn(true);
        assertThat(service.reserveEstimate(reservation, 5_000_000)).isEmpty();

        userRow(BudgetRows.of("alice", windows).spent(9_000_000));
        Denied denied = service.reserveEstimate(reservation, 2_000_001).orElseThrow();
        assertThat(denied.reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
        assertThat(denied.message()).contains("needs about $2.00");
        assertThat(denials("spending_limit")).isEqualTo(1);
    }

    @Test
    void anEstimateRefusedWhileCallsSettledIsWorthRetrying() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        userRow(BudgetRows.of("alice", windows));

        assertThat(service.reserveEstimate(reservation, 100)).contains(BudgetDenials.busy());
        when(budgets.find("alice")).thenReturn(Optional.empty());
        assertThat(service.reserveEstimate(reservation, 100)).contains(BudgetDenials.busy());
        assertThat(denials("fair_use")).isEqualTo(2);
    }

    @Test
    void underAHardLimitARefusedSliceEndsTheCall() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 100);
        databaseGrantsOnly(false);
        assertThat(service.extend(reservation, 50)).isEqualTo(ExtensionDecision.GRANTED);
        assertThat(reservation.amountMicros()).isEqualTo(150);
        assertThat(service.extend(reservation, 0)).isEqualTo(ExtensionDecision.GRANTED);

        databaseGrantsOnly(true);
        userRow(BudgetRows.of("alice", windows));
        assertThat(service.extend(reservation, 50)).isEqualTo(ExtensionDecision.REFUSED);
        assertThat(reservation.amountMicros()).isEqualTo(150);
        assertThat(service.extend(reservation, 0)).as("nothing asked").isEqualTo(ExtensionDecision.GRANTED);
    }

    @Test
    void underASoftLimitACallRunsOneSlicePastItThenEnds() {
        var reservation = new Reservation(UUID.randomUUID(), "alice", 100);
        userRow(BudgetRows.of("alice", windows).enforcement(Enforcement.SOFT));
        databaseGrantsOnly(true);

        assertThat(service.extend(reservation, 50)).isEqualTo(ExtensionDecision.GRANTED_AS_OVERRUN);
        assertThat(reservation.overrun()).isTrue();
        assertThat(reservation.amountMicros()).isEqualTo(150);
        assertThat(service.extend(reservation, 50)).isEqualTo(ExtensionDecision.REFUSED);
    }

    @Test
    void theConfiguredEnforcementAppliesToUsersWithoutTheirOwn() {
        var soft = service(Enforcement.SOFT);
        databaseGrantsOnly(true);
        userRow(BudgetRows.of("alice", windows));
        assertThat(soft.extend(new Reservation(UUID.randomUUID(), "alice", 1), 5))
                .isEqualTo(ExtensionDecision.GRANTED_AS_OVERRUN);

        when(budgets.find("alice")).thenReturn(Optional.empty());
        assertThat(soft.extend(new Reservation(UUID.randomUUID(), "alice", 1), 5))
                .isEqualTo(ExtensionDecision.GRANTED_AS_OVERRUN);

        userRow(BudgetRows.of("alice", windows).enforcement(Enforcement.HARD));
        assertThat(soft.extend(new Reservation(UUID.randomUUID(), "alice", 1), 5))
                .isEqualTo(ExtensionDecision.REFUSED);
    }

    @Test
    void aCallFromALeaseGrowsInTheLeaseAndUnderASoftLimitOncePastIt() {
        LocalLease lease = LeaseBooks.holding("alice", 100, windows);
        var reservation = new Reservation(UUID.randomUUID(), "alice", 100, lease);
        when(leases.grow(lease, 10, false)).thenReturn(true);
        assertThat(service.extend(reservation, 10)).isEqualTo(ExtensionDecision.GRANTED);
        assertThat(reservation.amountMicros()).isEqualTo(110);
        assertThat(reservation.overrun()).isFalse();

        userRow(BudgetRows.of("alice", windows).enforcement(Enforcement.SOFT));
        when(leases.grow(lease, 20, true)).thenReturn(true);
        assertThat(service.extend(reservation, 20)).isEqualTo(ExtensionDecision.GRANTED_AS_OVERRUN);
        assertThat(reservation.amountMicros()).isEqualTo(130);
        assertThat(reservation.overrun()).isTrue();
        assertThat(service.extend(reservation, 20)).isEqualTo(ExtensionDecision.REFUSED);
        verify(reservations, never()).growInDatabase(any(), anyLong(), any(Boolean.class));
    }

    @Test
    void aLeasedCallUnderAHardLimitIsRefusedWhenTheLeaseCannotGrow() {
        LocalLease lease = LeaseBooks.holding("alice", 100, windows);
        var reservation = new Reservation(UUID.randomUUID(), "alice", 100, lease);
        userRow(BudgetRows.of("alice", windows));
        when(leases.grow(lease, 20, true)).thenReturn(true);

        assertThat(service.extend(reservation, 20)).isEqualTo(ExtensionDecision.REFUSED);
        assertThat(reservation.amountMicros()).isEqualTo(100);
    }

    @Test
    void settlingALeasedCallPassesWhatTheLeaseShrinksByToTheWriter() {
        LocalLease lease = LeaseBooks.holding("alice", 100, windows);
        var leased = new Reservation(UUID.randomUUID(), "alice", 100, lease);
        var own = new Reservation(UUID.randomUUID(), "alice", 100);
        UsageRecord record = CompletedCalls.of("alice", 70, now);
        when(leases.settled(lease, 100, 70, record.tokens().uncached())).thenReturn(70L);
        when(settlements.submit(any(), any(), anyLong())).thenReturn(CompletableFuture.completedFuture(null));

        service.settle(leased, record);
        service.postCallDebit(own, record);

        verify(settlements).submit(record, leased, 70);
        verify(settlements).submit(record, own, 0);
    }

    @Test
    void aRecordThatCannotBeWrittenFailsTheCallerWithItsCause() {
        UsageRecord record = CompletedCalls.of("alice", 0, now);
        var failure = new IllegalStateException("database down");
        when(settlements.submit(record, null, 0)).thenReturn(CompletableFuture.failedFuture(failure));

        assertThatThrownBy(() -> service.record(record)).isSameAs(failure);

        var reservation = new Reservation(UUID.randomUUID(), "alice", 1);
        when(settlements.submit(record, reservation, 0)).thenReturn(CompletableFuture.failedFuture(failure));
        assertThatThrownBy(() -> service.postCallDebit(reservation, record)).isSameAs(failure);
    }

    @Test
    void deadReservationsGoBackOnlyIfNoOtherReplicaReleasedThemFirst() {
        var gone = new ReservationRepository.Expired(UUID.randomUUID(), "alice", 300);
        var stillThere = new ReservationRepository.Expired(UUID.randomUUID(), "bob", 400);
        var alsoThere = new ReservationRepository.Expired(UUID.randomUUID(), "carol", 500);
        when(returns.expireDead()).thenReturn(2);
        when(reservationRows.expired(now, 500)).thenReturn(List.of(gone, stillThere, alsoThere));
        when(reservationRows.deleteIfExpired(stillThere.id(), now)).thenReturn(true);
        when(reservationRows.deleteIfExpired(alsoThere.id(), now)).thenReturn(true);

        assertThat(service.expireDeadReservations()).isEqualTo(4);
        verify(budgets).release("bob", 400);
        verify(budgets).release("carol", 500);
        verify(budgets, never()).release(eq("alice"), anyLong());
    }

    @Test
    void statusShowsTheRowAsTheUserSeesItOrAFreshBudget() {
        userRow(BudgetRows.of("alice", windows).spent(1_000_000));

        assertThat(service.status("alice").remainingMicros()).isEqualTo(9_000_000);
        assertThat(service.status("bob")).isEqualTo(BudgetStatus.fresh("bob", windows, BudgetRows.properties()));
    }

    @Test
    void newSettingsRevokeTheUsersLeasesEverywhereBeforeTheyAreShown() {
        var settings = new UserBudgetSettings(5_000_000L, null, null, null, null);
        when(returns.revokeEverywhere("alice", Duration.ofSeconds(3))).thenReturn(1);
        userRow(BudgetRows.of("alice", windows).limit(5_000_000));

        assertThat(service.configure("alice", settings).limitMicros()).isEqualTo(5_000_000);
        verify(budgets).createIfAbsent("alice", windows);
        verify(budgets).updateSettings("alice", settings, now);
        verify(returns).revokeOthers("alice");
        assertThat(transactions.commits).isEqualTo(1);
    }

    @Test
    void theSchedulesSweepLeasesAndExpireDeadCalls() {
        var expiry = new ReservationExpiry(service);
        when(returns.expireDead()).thenReturn(1);

        expiry.sweepLeases();
        expiry.expire();

        verify(returns).sweep();
        verify(returns).expireDead();
    }
}
