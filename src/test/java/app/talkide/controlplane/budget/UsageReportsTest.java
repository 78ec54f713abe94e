package app.talkide.controlplane.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.budget.account.BudgetPeriod;
import app.talkide.controlplane.budget.account.BudgetRows;
import app.talkide.controlplane.budget.account.LimitWindows;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import java.security.Principal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Usage reports and the budget endpoints' own checks, with a stand-in for the usage records and the service. */
class UsageReportsTest {

    final Instant now = Instant.parse("2026-03-14T10:20:30Z");
    final UsageRecordRepository records = mock(UsageRecordRepository.class);
    final UsageReports reports = new UsageReports(records, BudgetRows.properties(), Clock.fixed(now, ZoneOffset.UTC));
    final UserBudgetService budgets = mock(UserBudgetService.class);
    final BudgetAdminController admin = new BudgetAdminController(budgets, reports);

    @Test
    void aReportCoversTheCurrentPeriodUnlessARangeIsGiven() {
        var rows = List.of(new UsageSummary("alice", 2, 10, 0, 0, 0, 20, 300, 0));
        Instant periodStart = Instant.parse("2026-03-01T00:00:00Z");
        Instant periodEnd = Instant.parse("2026-04-01T00:00:00Z");
        when(records.summarize("user", periodStart, periodEnd, "")).thenReturn(rows);

        assertThat(reports.report("user", null, null, null))
                .isEqualTo(new UsageReports.UsageReport("user", periodStart, periodEnd, rows));

        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        Instant to = Instant.parse("2026-01-02T00:00:00Z");
        reports.report("model", from, to, "alice");
        verify(records).summarize("model", from, to, "alice");
    }

    @Test
    void anUnknownGroupingOrAnEmptyRangeIsRefused() {
        assertThatThrownBy(() -> reports.report("password", null, null, null))
                .isInstanceOf(InvalidUsageQuery.class)
                .hasMessageContaining("groupBy must be one of [family, model, outcome, tenant, user]");
        assertThatThrownBy(() -> reports.report("user", now, now, null))
                .isInstanceOf(InvalidUsageQuery.class)
                .hasMessageContaining("from must be before to");
        assertThatThrownBy(() -> reports.report("user", now, now.minusSeconds(1), null))
                .isInstanceOf(InvalidUsageQuery.class);
        verify(records, never()).summarize(any(), any(), any(), any());
    }

    @Test
    void callsOfAConversationAreCountedFromItsUsageRecords() {
        UUID conversation = UUID.randomUUID();
        when(records.countOfConversation(conversation)).thenReturn(3);

        assertThat(reports.callsOfConversation(conversation)).isEqualTo(3);
    }

    @Test
    void aUserIdHasOneTo255Characters() {
        var status =
                BudgetStatus.fresh("a".repeat(255), LimitWindows.at(now, BudgetPeriod.MONTH), BudgetRows.properties());
        when(budgets.status("a".repeat(255))).thenReturn(status);
        assertThat(admin.get("a".repeat(255))).isSameAs(status);

        for (String bad : List.of("", "  ", "a".repeat(256))) {
            assertThatThrownBy(() -> admin.get(bad)).as(bad).isInstanceOf(InvalidUsageQuery.class);
            assertThatThrownBy(() -> admin.set(bad, UserBudgetSettings.DEFAULTS))
                    .isInstanceOf(InvalidUsageQuery.class);
        }
        verify(budgets, never()).configure(any(), any());
    }

    @Test
    void theEndpointsAnswerWhatTheServiceSays() {
        var status = BudgetStatus.fresh("alice", LimitWindows.at(now, BudgetPeriod.MONTH), BudgetRows.properties());
        when(budgets.configure("alice", UserBudgetSettings.DEFAULTS)).thenReturn(status);
        when(budgets.status("alice")).thenReturn(status);
        Principal alice = () -> "alice";

        assertThat(admin.set("alice", UserBudgetSettings.DEFAULTS)).isSameAs(status);
        assertThat(new MyUsageController(budgets).myUsage(alice)).isSameAs(status);
        assertThat(admin.usage("user", null, null, null).groupBy()).isEqualTo("user");
    }
}
