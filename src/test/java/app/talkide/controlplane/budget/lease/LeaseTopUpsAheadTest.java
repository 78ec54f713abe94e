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
import app.talkide.controlplane.budget.account.LimitWindows;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Top-ups ahead of need, with stand-ins for the database: a lease running low asks once, the next commit
 * grants it from the user's row, and a refusal stops asking until a call's own top-up succeeds.
 */
class LeaseTopUpsAheadTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final Instant expires = now.plusSeconds(60);
    final BudgetProperties properties = BudgetRows.properties();
    final LeaseRepository rows = mock(LeaseRepository.class);
    final BudgetRepository budgets = mock(BudgetRepository.class);
    final Counter granted = new SimpleMeterRegistry().counter("granted");
    final LeaseTopUpsAhead ahead =
            new LeaseTopUpsAhead("replica-1", rows, budgets, properties, Clock.fixed(now, ZoneOffset.UTC), granted);

    /** Alice's lease after one call: $1 (plenty) but four of the minute's requests, a quarter of a top-up's 60. */
    void aliceHasARowWithRoom() {
        when(budgets.find("alice"))
                .thenReturn(Optional.of(BudgetRows.of("alice", windows).row()));
    }

    void grantsCommit() {
        when(rows.grant(any(), any(), any(), anyLong(), anyBoolean(), any(), any(), any()))
                .thenReturn(true);
    }

    LocalLease lowOnRequests() {
        LocalLease lease = new LocalLease("alice", now);
        lease.granted(new LeaseRepository.Grant(1_000_000, 2, 5, 0, 1_000), windows, expires);
        assertThat(lease.take(300, windows)).isTrue();
        return lease;
    }

    @Test
    void aLeaseRunningLowAsksOnceAndOneWithPlentyDoesNotAsk() {
        LocalLease plenty = new LocalLease("bob", now);
        plenty.granted(new LeaseRepository.Grant(1_000_000, 2, 60, 0, 1_000), windows, expires);
        ahead.wantIfLow(plenty, windows);
        assertThat(ahead.any()).isFalse();

        LocalLease low = lowOnRequests();
        ahead.wantIfLow(low, windows);
        ahead.wantIfLow(low, windows);
        assertThat(ahead.any()).isTrue();
        assertThat(ahead.claim()).hasSize(1);
        assertThat(ahead.any()).isFalse();
    }

    @Test
    void theNextCommitGrantsTheTopUpSizedByTheUsersRow() {
        LocalLease lease = lowOnRequests();
        ahead.wantIfLow(lease, windows);
        aliceHasARowWithRoom();
        grantsCommit();

        LeaseTopUpsAhead.TopUp topUp = ahead.claim().getFirst();
        assertThat(topUp.userId()).isEqualTo("alice");
        assertThat(topUp.wanted()).isTrue();
        topUp.lockRow();
        topUp.grant();
        verify(rows).lock("alice", "replica-1", windows, expires);
        var sized = new LeaseRepository.Grant(0, 0, 5, 0, 1_000);
        verify(rows).grant("alice", "replica-1", sized, 2_000_000, false, properties.defaultLimits(), windows, expires);

        topUp.finish(true);
        assertThat(granted.count()).isEqualTo(1);
        assertThat(lease.changing.isLocked()).isFalse();
        assertThat(lease.refilling.get()).isFalse();
        for (int i = 0; i < 9; i++) {
            assertThat(lease.take(0, windows)).as("request %d", i).isTrue();
            lease.settle(0, 0, 0, now);
        }
        assertThat(lease.take(0, windows)).as("four left and five granted").isFalse();
    }

    @Test
    void aRefusedTopUpStopsAskingAhead() {
        LocalLease lease = lowOnRequests();
        ahead.wantIfLow(lease, windows);
        aliceHasARowWithRoom();

        LeaseTopUpsAhead.TopUp topUp = ahead.claim().getFirst();
        topUp.wanted();
        topUp.grant();
        topUp.finish(true);

        assertThat(granted.count()).isZero();
        ahead.wantIfLow(lease, windows);
        assertThat(ahead.any()).as("the calls ask from now on").isFalse();
    }

    @Test
    void aTopUpWhoseCommitFailedLeavesTheLeaseAsItWasAndAsksAgain() {
        LocalLease lease = lowOnRequests();
        ahead.wantIfLow(lease, windows);
        aliceHasARowWithRoom();
        grantsCommit();

        LeaseTopUpsAhead.TopUp topUp = ahead.claim().getFirst();
        topUp.wanted();
        topUp.grant();
        topUp.finish(false);

        assertThat(granted.count()).isZero();
        assertThat(lease.changing.isLocked()).isFalse();
        ahead.wantIfLow(lease, windows);
        assertThat(ahead.any()).isTrue();
    }

    @Test
    void aUserWithoutRoomOrARowIsNotToppedUp() {
        LocalLease lease = lowOnRequests();
        ahead.wantIfLow(lease, windows);
        when(budgets.find("alice"))
                .thenReturn(Optional.of(BudgetRows.of("alice", windows)
                        .minute(windows.minute(), 9)
                        .row()));

        LeaseTopUpsAhead.TopUp topUp = ahead.claim().getFirst();
        topUp.wanted();
        topUp.grant();
        when(budgets.find("alice")).thenReturn(Optional.empty());
        topUp.grant();

        verify(rows, never()).grant(any(), any(), any(), anyLong(), anyBoolean(), any(), any(), any());
    }

    @Test
    void aLeaseClosedOrToppedUpMeanwhileNeedsNothing() {
        LocalLease lease = lowOnRequests();
        ahead.wantIfLow(lease, windows);
        LeaseTopUpsAhead.TopUp topUp = ahead.claim().getFirst();

        lease.granted(new LeaseRepository.Grant(0, 0, 60, 0, 1_000), windows, expires);
        assertThat(topUp.wanted()).isFalse();
        lease.lost();
        assertThat(topUp.wanted()).isFalse();
        topUp.grant();
        verify(budgets, never()).find(any());
    }

    @Test
    void aLeaseLockedByACallsOwnTopUpIsLeftToIt() throws Exception {
        LocalLease lease = lowOnRequests();
        ahead.wantIfLow(lease, windows);
        // Another thread holds the lease's lock, as a call topping it up would.
        var locked = new CompletableFuture<Void>();
        var release = new CompletableFuture<Void>();
        Thread holder = Thread.ofVirtual().start(() -> {
            lease.changing.lock();
            try {
                locked.complete(null);
                release.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                lease.changing.unlock();
            }
        });
        locked.get(10, TimeUnit.SECONDS);

        assertThat(ahead.claim()).isEmpty();
        assertThat(lease.refilling.get()).isFalse();
        release.complete(null);
        assertThat(holder.join(java.time.Duration.ofSeconds(10))).isTrue();
        assertThat(ahead.claim()).isEqualTo(List.of());
    }
}
