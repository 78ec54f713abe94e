package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetProperties;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What a user and an admin see of a budget: spend this period, what calls hold, and what is left. */
class BudgetStatusTest {

    final LimitWindows now = LimitWindows.at(Instant.parse("2026-03-14T10:20:30Z"), BudgetPeriod.MONTH);
    final BudgetProperties defaults = BudgetRows.properties(Enforcement.SOFT);

    @Test
    void leftIsTheLimitLessSpendAndWhatCallsInFlightHold() {
        var row = BudgetRows.of("alice", now)
                .limit(5_000_000)
                .enforcement(Enforcement.HARD)
                .spent(1_500_000)
                .reserved(500_000)
                .inFlight(2)
                .row();

        BudgetStatus status = BudgetStatus.of(row, now, defaults);

        assertThat(status.userId()).isEqualTo("alice");
        assertThat(status.periodStart()).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
        assertThat(status.periodEnd()).isEqualTo(Instant.parse("2026-04-01T00:00:00Z"));
        assertThat(status.spentMicros()).isEqualTo(1_500_000);
        assertThat(status.reservedMicros()).isEqualTo(500_000);
        assertThat(status.limitMicros()).isEqualTo(5_000_000);
        assertThat(status.remainingMicros()).isEqualTo(3_000_000);
        assertThat(status.enforcement()).isEqualTo(Enforcement.HARD);
        assertThat(status.callsInFlight()).isEqualTo(2);
        assertThat(status.settings()).isEqualTo(new UserBudgetSettings(5_000_000L, Enforcement.HARD, null, null, null));
    }

    @Test
    void withoutOverridesTheDefaultsApplyAndLastPeriodsSpendIsGone() {
        var row = BudgetRows.of("bob", now)
                .spentIn(Instant.parse("2026-02-01T00:00:00Z"), 7_000_000)
                .row();

        BudgetStatus status = BudgetStatus.of(row, now, defaults);

        assertThat(status.spentMicros()).isZero();
        assertThat(status.limitMicros()).isEqualTo(10_000_000);
        assertThat(status.remainingMicros()).isEqualTo(10_000_000);
        assertThat(status.enforcement()).isEqualTo(Enforcement.SOFT);
        assertThat(status.settings()).isEqualTo(UserBudgetSettings.DEFAULTS);
    }

    @Test
    void anOverrunShowsNothingLeftRatherThanANegativeAmount() {
        var row = BudgetRows.of("carol", now).limit(1_000_000).spent(1_200_000).row();

        assertThat(BudgetStatus.of(row, now, defaults).remainingMicros()).isZero();
    }

    @Test
    void aUserWhoNeverCalledHasTheWholeDefaultLimit() {
        BudgetStatus status = BudgetStatus.fresh("dave", now, defaults);

        assertThat(status)
                .isEqualTo(new BudgetStatus(
                        "dave",
                        Instant.parse("2026-03-01T00:00:00Z"),
                        Instant.parse("2026-04-01T00:00:00Z"),
                        0,
                        0,
                        10_000_000,
                        10_000_000,
                        Enforcement.SOFT,
                        0,
                        UserBudgetSettings.DEFAULTS));
    }

    @Test
    void moneyReadsAsDollarsAndCentsRoundedHalfUp() {
        assertThat(Money.format(0)).isEqualTo("$0.00");
        assertThat(Money.format(1_005_000)).isEqualTo("$1.01");
        assertThat(Money.format(1_004_999)).isEqualTo("$1.00");
        assertThat(Money.format(25_000_000)).isEqualTo("$25.00");
    }

    @Test
    void codesAreTheLowerCaseNames() {
        assertThat(DenialReason.SPENDING_LIMIT.code()).isEqualTo("spending_limit");
        assertThat(CallOutcome.CLIENT_CANCELLED.code()).isEqualTo("client_cancelled");
        assertThat(ExtensionDecision.GRANTED.granted()).isTrue();
        assertThat(ExtensionDecision.GRANTED_AS_OVERRUN.granted()).isTrue();
        assertThat(ExtensionDecision.REFUSED.granted()).isFalse();
        assertThat(new UsageRecord.TokenCounts(1, 20, 300, 4_000, 50_000).uncached())
                .as("cache reads do not count against tokens per hour")
                .isEqualTo(50_321);
    }
}
