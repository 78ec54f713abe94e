package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.BudgetDecision.Denied;
import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.LimitWindows;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What a refused user reads: which limit, how much is left, when it resets, and whether to retry. */
class BudgetDenialsTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final LimitWindows windows = LimitWindows.at(now, BudgetPeriod.MONTH);
    final BudgetProperties defaults = BudgetRows.properties(); // $10 limit, 4 at once, 10/min, 1000 tokens/h

    BudgetRows alice() {
        return BudgetRows.of("alice", windows);
    }

    @Test
    void aCallThatFitsExactlyIsNotRefused() {
        var row = alice().spent(6_000_000).reserved(1_000_000).row();

        assertThat(BudgetDenials.spending(row, 3_000_000, windows, defaults)).isNull();
        assertThat(BudgetDenials.explain(row, 3_000_000, windows, defaults)).isNull();
    }

    @Test
    void aSpentLimitSaysSoAndIsNotWorthRetryingBeforeTheReset() {
        var row = alice().limit(5_000_000).spent(5_000_000).row();

        Denied denied = BudgetDenials.explain(row, 1, windows, defaults);

        assertThat(denied.reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
        assertThat(denied.message())
                .isEqualTo(
                        "Spending limit reached: $5.00 of $5.00 used this period. It resets at 2026-04-01T00:00:00Z.");
        assertThat(denied.retryable()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.between(now, Instant.parse("2026-04-01T00:00:00Z")));
    }

    @Test
    void aCallThatFitsOnceTheCallsInFlightSettleMayBeRetriedAtOnce() {
        // $4 spent, $3 held by calls in flight, of $10: a $5 call fits once those settle (at no cost).
        var row = alice().spent(4_000_000).reserved(3_000_000).row();

        Denied denied = BudgetDenials.spending(row, 5_000_000, windows, defaults);

        assertThat(denied.message())
                .isEqualTo("Spending limit: this call needs about $5.00 but $3.00 of your $10.00 limit is left"
                        + " ($3.00 held by calls in flight). It resets at 2026-04-01T00:00:00Z.");
        assertThat(denied.retryable()).isTrue();
        assertThat(denied.retryAfter()).isNull();
    }

    @Test
    void aCallThatFitsOnlyToTheLastMicroDollarAfterTheCallsInFlightIsStillRetryable() {
        var row = alice().spent(4_000_000).reserved(1).row();

        assertThat(BudgetDenials.spending(row, 6_000_000, windows, defaults).retryable())
                .isTrue();
        assertThat(BudgetDenials.spending(row, 6_000_001, windows, defaults).retryable())
                .isFalse();
    }

    @Test
    void aCallLargerThanWhatIsLeftEvenWithoutCallsInFlightWaitsForTheReset() {
        // Held calls exceed what is left: nothing is shown as left, never a negative amount.
        var row = alice().spent(8_000_000).reserved(3_000_000).row();

        Denied denied = BudgetDenials.spending(row, 3_000_000, windows, defaults);

        assertThat(denied.message()).contains("but $0.00 of your $10.00 limit is left ($3.00 held by calls in flight)");
        assertThat(denied.retryable()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(windows.until(windows.periodEnd()));
    }

    @Test
    void spendOfAnEarlierPeriodDoesNotCount() {
        var row = alice().spentIn(Instant.parse("2026-02-01T00:00:00Z"), 10_000_000)
                .row();

        assertThat(BudgetDenials.explain(row, 9_000_000, windows, defaults)).isNull();
    }

    @Test
    void concurrentCallsAreLimitedByTheUsersOwnSettingOrTheDefault() {
        Denied atDefault = BudgetDenials.explain(alice().inFlight(4).row(), 1, windows, defaults);
        assertThat(atDefault.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(atDefault.message()).isEqualTo("Fair use: at most 4 calls at once; wait for one to finish.");
        assertThat(atDefault.retryable()).isTrue();
        assertThat(atDefault.retryAfter()).isNull();

        assertThat(BudgetDenials.explain(alice().inFlight(3).row(), 1, windows, defaults))
                .isNull();
        assertThat(BudgetDenials.explain(alice().maxConcurrent(6).inFlight(5).row(), 1, windows, defaults))
                .isNull();
        assertThat(BudgetDenials.explain(alice().maxConcurrent(2).inFlight(2).row(), 1, windows, defaults)
                        .message())
                .contains("at most 2 calls");
    }

    @Test
    void requestsPerMinuteCountOnlyThisMinuteAndFreeUpWhenItEnds() {
        Denied denied =
                BudgetDenials.explain(alice().minute(windows.minute(), 10).row(), 1, windows, defaults);
        assertThat(denied.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(denied.message()).isEqualTo("Fair use: at most 10 requests per minute.");
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(denied.retryable()).isTrue();

        assertThat(BudgetDenials.explain(alice().minute(windows.minute(), 9).row(), 1, windows, defaults))
                .isNull();
        var lastMinute = windows.minute().minusSeconds(60);
        assertThat(BudgetDenials.explain(alice().minute(lastMinute, 10).row(), 1, windows, defaults))
                .isNull();
        assertThat(BudgetDenials.explain(
                        alice().requestsPerMinute(20)
                                .minute(windows.minute(), 10)
                                .row(),
                        1,
                        windows,
                        defaults))
                .isNull();
    }

    @Test
    void tokensPerHourCountOnlyThisHourAndFreeUpWhenItEnds() {
        Denied denied =
                BudgetDenials.explain(alice().hour(windows.hour(), 1_000).row(), 1, windows, defaults);
        assertThat(denied.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(denied.message()).isEqualTo("Fair use: at most 1000 tokens per hour.");
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofMinutes(39).plusSeconds(30));
        assertThat(denied.retryable()).isTrue();

        assertThat(BudgetDenials.explain(alice().hour(windows.hour(), 999).row(), 1, windows, defaults))
                .isNull();
        var lastHour = windows.hour().minusSeconds(3_600);
        assertThat(BudgetDenials.explain(alice().hour(lastHour, 5_000).row(), 1, windows, defaults))
                .isNull();
        assertThat(BudgetDenials.explain(
                        alice().tokensPerHour(2_000).hour(windows.hour(), 1_000).row(), 1, windows, defaults))
                .isNull();
    }

    @Test
    void theSpendingLimitIsNamedBeforeAFairUseLimit() {
        var row = alice().spent(10_000_000).inFlight(4).row();

        assertThat(BudgetDenials.explain(row, 1, windows, defaults).reason()).isEqualTo(DenialReason.SPENDING_LIMIT);
    }

    @Test
    void aRefusalNothingExplainsIsARetryableFairUseRefusal() {
        Denied busy = BudgetDenials.busy();

        assertThat(busy.reason()).isEqualTo(DenialReason.FAIR_USE);
        assertThat(busy.retryable()).isTrue();
        assertThat(busy.message()).isEqualTo("Fair use: too many calls at once; try again shortly.");
    }
}
