package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.budget.account.BudgetRepository;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.StandInTransactions;
import app.talkide.controlplane.budget.lease.BudgetLeases;
import app.talkide.controlplane.budget.lease.LeaseTopUpsAhead;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group-commit writer with stand-ins for the database: a settlement's future completes once its
 * commit did, a settlement the database refuses fails alone, and top-ups ahead of need ride along.
 */
class SettlementWriterTest {

    /**
     * How long a settlement may take: the writer picks it up at once and the stand-ins commit in
     * microseconds, so two seconds is ample even on a loaded machine, and a writer that lost a settlement
     * (or never stops) fails its test in two seconds rather than hanging until mutation testing's timeout.
     */
    static final long WAIT_SECONDS = 2;

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final UsageRecordRepository usage = mock(UsageRecordRepository.class);
    final ReservationRepository reservations = mock(ReservationRepository.class);
    final BudgetLeases leases = mock(BudgetLeases.class);
    final LeaseTopUpsAhead ahead = mock(LeaseTopUpsAhead.class);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    SettlementWriter writer;

    SettlementWriterTest() {
        when(leases.topUpsAhead()).thenReturn(ahead);
        when(ahead.claim()).thenReturn(List.of());
        when(reservations.delete(any()))
                .thenAnswer(call -> new boolean[call.<List<?>>getArgument(0).size()]);
    }

    /** Starts the writer's thread: after the stand-ins are set up, which must not change under it. */
    SettlementWriter start() {
        writer = new SettlementWriter(
                mock(BudgetRepository.class),
                reservations,
                usage,
                leases,
                BudgetRows.properties(),
                Clock.fixed(now, ZoneOffset.UTC),
                new StandInTransactions(),
                meters,
                mock(OneStatementSettlement.class)); // H2's path: settles through SettlementCommit
        return writer;
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (writer != null) {
            assertThat(writer.stop(Duration.ofSeconds(WAIT_SECONDS)))
                    .as("the writer ends once its queue is drained")
                    .isTrue();
        }
    }

    UsageRecord call(String user) {
        return CompletedCalls.of(user, 100, now);
    }

    @Test
    void aSettlementCompletesOnceItsCommitDid() throws Exception {
        UsageRecord record = call("alice");

        start().submit(record, new Reservation(UUID.randomUUID(), "alice", 100), 0)
                .get(WAIT_SECONDS, TimeUnit.SECONDS);

        verify(usage).insertAll(List.of(record));
        assertThat(meters.get("talkide.budget.settlement.batch").summary().count())
                .isEqualTo(1);
    }

    @Test
    void aSettlementTheDatabaseRefusesFailsAloneAndTheOthersCommit() throws Exception {
        UsageRecord poison = call("mallory");
        var refused = new IllegalStateException("value too long");
        doThrow(refused).when(usage).insertAll(argThat(records -> records.contains(poison)));

        start();
        CompletableFuture<Void> before = writer.submit(call("alice"), null, 0);
        CompletableFuture<Void> failing = writer.submit(poison, null, 0);
        CompletableFuture<Void> after = writer.submit(call("bob"), null, 0);

        before.get(WAIT_SECONDS, TimeUnit.SECONDS);
        after.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThatThrownBy(() -> failing.get(WAIT_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isSameAs(refused);
    }

    @Test
    void aTopUpAheadOfNeedGoesAloneWhenNoSettlementComes() {
        LeaseTopUpsAhead.TopUp topUp = mock(LeaseTopUpsAhead.TopUp.class);
        when(topUp.userId()).thenReturn("alice");
        when(ahead.any()).thenReturn(true);
        when(ahead.claim()).thenReturn(List.of(topUp), List.of());
        start();

        verify(topUp, timeout(WAIT_SECONDS * 1_000)).finish(true);
        verify(topUp).wanted();
    }

    @Test
    void aFailedCommitWithATopUpRetriesTheSettlementWithoutIt() throws Exception {
        LeaseTopUpsAhead.TopUp topUp = mock(LeaseTopUpsAhead.TopUp.class);
        when(topUp.userId()).thenReturn("alice");
        when(topUp.wanted())
                .thenThrow(new IllegalStateException("lock timeout"))
                .thenReturn(false);
        when(ahead.claim()).thenReturn(List.of(topUp), List.of());
        UsageRecord record = call("bob");

        start().submit(record, null, 0).get(WAIT_SECONDS, TimeUnit.SECONDS);

        verify(topUp).finish(false);
        verify(usage, timeout(WAIT_SECONDS * 1_000).times(2)).insertAll(List.of(record));
    }

    @Test
    void aWriterStillCommittingDoesNotReportItselfStopped() throws Exception {
        var committing = new CompletableFuture<Void>();
        var release = new CompletableFuture<Void>();
        doAnswer(call -> {
                    committing.complete(null);
                    return release.get(WAIT_SECONDS, TimeUnit.SECONDS);
                })
                .when(usage)
                .insertAll(any());
        CompletableFuture<Void> done = start().submit(call("alice"), null, 0);
        committing.get(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(writer.stop(Duration.ofMillis(20))).as("mid-commit").isFalse();
        release.complete(null);
        done.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void afterShutdownASettlementIsWrittenAtOnce() throws Exception {
        start().destroy();
        UsageRecord record = call("alice");

        CompletableFuture<Void> done = writer.submit(record, null, 0);

        assertThat(done).isCompleted();
        verify(usage).insertAll(List.of(record));
    }
}
