package app.talkide.controlplane.budget;

import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseTopUpsAhead;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The statements of one settlement commit: usage records, reservation deletes, lease shrinks and one
 * update per user, each table's statements sent together (a JDBC batch, one round trip). Lock order as
 * in every budget transaction: reservation rows, lease rows, then users' rows, each in user order, so
 * two replicas' writers never wait on each other in a cycle. A top-up ahead of need riding along locks
 * its lease row and updates its user's row in that same order: the batch is sent up to it first.
 */
final class SettlementCommit {

    private final BudgetRepository budgets;
    private final ReservationRepository reservations;
    private final UsageRecordRepository usage;
    private final BudgetLeases leases;
    private final BudgetProperties properties;
    private final Clock clock;

    SettlementCommit(
            BudgetRepository budgets,
            ReservationRepository reservations,
            UsageRecordRepository usage,
            BudgetLeases leases,
            BudgetProperties properties,
            Clock clock) {
        this.budgets = budgets;
        this.reservations = reservations;
        this.usage = usage;
        this.leases = leases;
        this.properties = properties;
        this.clock = clock;
    }

    /** Runs inside the caller's transaction. */
    void apply(List<SettlementWriter.Pending> batch, List<LeaseTopUpsAhead.TopUp> topUps) {
        LimitWindows now = LimitWindows.at(clock.instant(), properties.period());
        List<UsageRecord> plain = new ArrayList<>();
        List<SettlementWriter.Pending> overrun = new ArrayList<>();
        for (SettlementWriter.Pending pending : batch) {
            if (pending.reservation() != null && pending.reservation().overrun()) {
                overrun.add(pending);
            } else {
                plain.add(pending.record());
            }
        }
        usage.insertAll(plain);
        Map<String, UserSettlement> users = new TreeMap<>();
        deleteReservations(batch, users);
        for (SettlementWriter.Pending pending : batch) {
            Reservation reservation = pending.reservation();
            if (reservation != null && reservation.lease() != null) {
                users.computeIfAbsent(reservation.userId(), u -> new UserSettlement())
                        .fromLease(pending.record(), pending.leaseShrink());
            }
        }
        for (LeaseTopUpsAhead.TopUp topUp : topUps) {
            if (topUp.wanted()) {
                users.computeIfAbsent(topUp.userId(), u -> new UserSettlement()).topUp = topUp;
            }
        }
        shrinkLeases(users);
        settleUsers(users, now);
        for (SettlementWriter.Pending pending : overrun) {
            usage.insert(pending.record(), overrunAfterSettling(pending.record().userId(), now));
        }
    }

    /** Reservations held on users' rows (not from a lease) are deleted; each gives back only if still ours. */
    private void deleteReservations(List<SettlementWriter.Pending> batch, Map<String, UserSettlement> users) {
        List<SettlementWriter.Pending> held = batch.stream()
                .filter(pending ->
                        pending.reservation() != null && pending.reservation().lease() == null)
                .toList();
        if (held.isEmpty()) {
            return;
        }
        boolean[] ours = reservations.delete(
                held.stream().map(pending -> reservationOf(pending).id()).toList());
        for (int i = 0; i < ours.length; i++) {
            Reservation reservation = reservationOf(held.get(i));
            users.computeIfAbsent(reservation.userId(), u -> new UserSettlement())
                    .add(held.get(i).record(), ours[i] ? reservation.amountMicros() : 0, ours[i] ? 1 : 0);
        }
    }

    private static Reservation reservationOf(SettlementWriter.Pending pending) {
        return Objects.requireNonNull(pending.reservation());
    }

    /** Lease rows, in user order; what a lease gives back counts only if the lease is still there. */
    private void shrinkLeases(Map<String, UserSettlement> users) {
        List<Map.Entry<String, UserSettlement>> run = new ArrayList<>();
        for (Map.Entry<String, UserSettlement> user : users.entrySet()) {
            // A lease that shrinks by nothing has nothing to give back: no statement for it.
            if (user.getValue().leased && user.getValue().shrink != 0) {
                run.add(user);
            }
            if (user.getValue().topUp != null) {
                shrink(run);
                user.getValue().topUp.lockRow();
            }
        }
        shrink(run);
    }

    private void shrink(List<Map.Entry<String, UserSettlement>> run) {
        if (run.isEmpty()) {
            return;
        }
        boolean[] there = leases.shrink(run.stream()
                .map(user -> new BudgetLeases.Shrink(user.getKey(), user.getValue().shrink))
                .toList());
        for (int i = 0; i < there.length; i++) {
            UserSettlement settled = run.get(i).getValue();
            if (there[i]) {
                settled.released += settled.shrink;
            }
        }
        run.clear();
    }

    /** Users' rows, in user order. */
    private void settleUsers(Map<String, UserSettlement> users, LimitWindows now) {
        List<BudgetRepository.Settled> run = new ArrayList<>();
        users.forEach((user, settled) -> {
            if (settled.settles) {
                run.add(new BudgetRepository.Settled(
                        user, settled.cost, settled.released, settled.slots, settled.tokens));
            }
            if (settled.topUp != null) {
                budgets.settle(run, now);
                run.clear();
                settled.topUp.grant();
            }
        });
        budgets.settle(run, now);
    }

    private long overrunAfterSettling(String userId, LimitWindows now) {
        return budgets.find(userId)
                .map(row -> Math.max(
                        0,
                        row.spentIn(now)
                                - (row.limitMicros() != null ? row.limitMicros() : properties.defaultLimitMicros())))
                .orElse(0L);
    }
}
