package app.talkide.controlplane.gateway.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import app.talkide.controlplane.budget.CallOutcome;
import app.talkide.controlplane.budget.Reservation;
import app.talkide.controlplane.budget.UsageRecord;
import app.talkide.controlplane.budget.UsageRecord.TokenCounts;
import app.talkide.controlplane.budget.UserBudgetService;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Settlement leaves the request's thread at once, and shutdown still waits for it. */
class SettlementsTest {

    final UserBudgetService budgets = mock(UserBudgetService.class);
    final Settlements settlements = new Settlements(budgets);
    // Made by the budget service only; what it holds does not matter here.
    final Reservation reservation = mock(Reservation.class);

    @Test
    @Timeout(30)
    void settleReturnsWhileTheSettlementRunsAndShutdownWaitsForIt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean settled = new AtomicBoolean();
        doAnswer(invocation -> {
                    started.countDown();
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("timed out waiting for release");
                    }
                    settled.set(true);
                    return null;
                })
                .when(budgets)
                .postCallDebit(any(), any());

        // Would block forever (until the test's timeout) if it settled on the caller's thread.
        settlements.settle(reservation, record());
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(settled).isFalse();

        Thread.startVirtualThread(release::countDown);
        settlements.destroy();
        assertThat(settled).isTrue();
    }

    @Test
    void afterShutdownASettlementRunsOnTheCallersThread() throws Exception {
        settlements.destroy();
        UsageRecord record = record();

        settlements.settle(reservation, record);

        verify(budgets).postCallDebit(reservation, record);
    }

    @Test
    void aFailedSettlementIsLoggedNotThrown() throws Exception {
        doAnswer(invocation -> {
                    throw new IllegalStateException("database gone");
                })
                .when(budgets)
                .postCallDebit(any(), any());
        settlements.destroy();

        settlements.settle(reservation, record());

        verify(budgets).postCallDebit(any(), any());
    }

    private static UsageRecord record() {
        return new UsageRecord(
                "gw_test",
                "acme",
                "dev",
                UUID.randomUUID(),
                "alice",
                "messages",
                "claude-sonnet-4-5",
                "sonnet",
                TokenCounts.NONE,
                0,
                CallOutcome.COMPLETED,
                200,
                Instant.parse("2026-03-14T10:20:30Z"),
                Duration.ZERO,
                null);
    }
}
