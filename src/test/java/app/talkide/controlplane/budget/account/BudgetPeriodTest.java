package app.talkide.controlplane.budget.account;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a limit's period starts and resets (UTC), and which minute and hour the fair-use limits count. */
class BudgetPeriodTest {

    // A Saturday.
    final Instant now = Instant.parse("2026-03-14T10:20:30.5Z");

    @Test
    void aDayRunsFromMidnightToMidnightUtc() {
        assertThat(BudgetPeriod.DAY.start(now)).isEqualTo(Instant.parse("2026-03-14T00:00:00Z"));
        assertThat(BudgetPeriod.DAY.end(now)).isEqualTo(Instant.parse("2026-03-15T00:00:00Z"));
    }

    @Test
    void aWeekRunsFromMonday() {
        assertThat(BudgetPeriod.WEEK.start(now)).isEqualTo(Instant.parse("2026-03-09T00:00:00Z"));
        assertThat(BudgetPeriod.WEEK.end(now)).isEqualTo(Instant.parse("2026-03-16T00:00:00Z"));
        Instant monday = Instant.parse("2026-03-16T00:00:00Z");
        assertThat(BudgetPeriod.WEEK.start(monday)).isEqualTo(monday);
    }

    @Test
    void aMonthRunsFromTheFirst() {
        assertThat(BudgetPeriod.MONTH.start(now)).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
        assertThat(BudgetPeriod.MONTH.end(now)).isEqualTo(Instant.parse("2026-04-01T00:00:00Z"));
        assertThat(BudgetPeriod.MONTH.end(Instant.parse("2026-02-28T23:59:59Z")))
                .isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
    }

    @Test
    void windowsHoldThePeriodTheMinuteAndTheHour() {
        LimitWindows windows = LimitWindows.at(now, BudgetPeriod.DAY);

        assertThat(windows.now()).isEqualTo(now);
        assertThat(windows.period()).isEqualTo(Instant.parse("2026-03-14T00:00:00Z"));
        assertThat(windows.periodEnd()).isEqualTo(Instant.parse("2026-03-15T00:00:00Z"));
        assertThat(windows.minute()).isEqualTo(Instant.parse("2026-03-14T10:20:00Z"));
        assertThat(windows.hour()).isEqualTo(Instant.parse("2026-03-14T10:00:00Z"));
    }

    @Test
    void untilIsNeverNegative() {
        LimitWindows windows = LimitWindows.at(now, BudgetPeriod.DAY);

        assertThat(windows.until(now.plusSeconds(5))).isEqualTo(Duration.ofSeconds(5));
        assertThat(windows.until(now.minusSeconds(5))).isEqualTo(Duration.ZERO);
    }

    @Test
    void aRowCountsItsSpendOnlyInItsOwnPeriod() {
        LimitWindows windows = LimitWindows.at(now, BudgetPeriod.DAY);

        assertThat(BudgetRows.of("alice", windows).spent(7).row().spentIn(windows))
                .isEqualTo(7);
        assertThat(BudgetRows.of("alice", windows)
                        .spentIn(windows.period().minusSeconds(1), 7)
                        .row()
                        .spentIn(windows))
                .isZero();
    }

    @Test
    void theDefaultLimitsAreWhatAFirstCallsRowGets() {
        assertThat(BudgetRows.properties().defaultLimits())
                .isEqualTo(new BudgetRepository.Limits(10_000_000, 4, 10, 1_000));
    }
}
