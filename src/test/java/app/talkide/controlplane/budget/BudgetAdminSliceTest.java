package app.talkide.controlplane.budget;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import app.talkide.controlplane.budget.account.Enforcement;
import app.talkide.controlplane.budget.account.UserBudgetSettings;
import app.talkide.controlplane.support.PeopleApiSliceTest;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

/** The budget admin API as routes: ADMIN only, settings validated before they reach the budgets. */
@PeopleApiSliceTest(BudgetAdminController.class)
class BudgetAdminSliceTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant END = Instant.parse("2026-02-01T00:00:00Z");

    @Autowired
    private MockMvc mvc;

    @MockitoBean
    private UserBudgetService budgets;

    @MockitoBean
    private UsageReports reports;

    @Test
    void adminSetsALimit() throws Exception {
        UserBudgetSettings settings = new UserBudgetSettings(5_000_000L, Enforcement.SOFT, null, null, null);
        given(budgets.configure("alice", settings)).willReturn(budgetOf("alice", settings));

        mvc.perform(put("/api/admin/budgets/alice")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"limitMicros\":5000000,\"enforcement\":\"SOFT\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.limitMicros").value(5_000_000))
                .andExpect(jsonPath("$.settings.enforcement").value("SOFT"));
    }

    @Test
    void aNegativeLimitIsA400ProblemAndChangesNothing() throws Exception {
        mvc.perform(put("/api/admin/budgets/alice")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"limitMicros\":-1}"))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE))
                .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("limitMicros")));
        then(budgets).shouldHaveNoInteractions();
    }

    @Test
    void anOverlongUserIdIsA400Problem() throws Exception {
        mvc.perform(get("/api/admin/budgets/{userId}", "u".repeat(256))
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/invalid-usage-query"));
        then(budgets).shouldHaveNoInteractions();
    }

    @Test
    void usageGroupsByUserUnlessAsked() throws Exception {
        given(reports.report("user", null, null, null))
                .willReturn(new UsageReports.UsageReport("user", START, END, List.of()));

        mvc.perform(get("/api/admin/usage").with(user("root").roles("ADMIN")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.groupBy").value("user"));
    }

    @Test
    void usageWithAMalformedInstantIsA400Problem() throws Exception {
        mvc.perform(get("/api/admin/usage")
                        .param("from", "yesterday")
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(reports).shouldHaveNoInteractions();
    }

    @Test
    void aUserCannotRaiseTheirOwnLimit() throws Exception {
        mvc.perform(put("/api/admin/budgets/alice")
                        .with(user("alice").roles("USER"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"limitMicros\":999999999}"))
                .andExpect(status().isForbidden())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(budgets).should(org.mockito.Mockito.never()).configure(any(), any());
    }

    @Test
    void anonymousIsA401Problem() throws Exception {
        mvc.perform(get("/api/admin/usage")).andExpect(status().isUnauthorized());
        then(reports).shouldHaveNoInteractions();
    }

    private static BudgetStatus budgetOf(String userId, UserBudgetSettings settings) {
        long limit = settings.limitMicros() == null ? 0 : settings.limitMicros();
        return new BudgetStatus(userId, START, END, 0, 0, limit, limit, Enforcement.SOFT, 0, settings);
    }
}
