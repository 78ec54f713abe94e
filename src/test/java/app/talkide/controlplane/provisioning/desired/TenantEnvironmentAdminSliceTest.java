package app.talkide.controlplane.provisioning.desired;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import app.talkide.controlplane.support.PeopleApiSliceTest;
import app.talkide.controlplane.tenant.TenantEnvironmentBeingDeleted;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

/** The tenant-environment admin API as routes: only ADMIN reaches the desired states, bad names are 400. */
@PeopleApiSliceTest(TenantEnvironmentAdminController.class)
class TenantEnvironmentAdminSliceTest {

    private static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Autowired
    private MockMvc mvc;

    @MockitoBean
    private DesiredStates desiredStates;

    @Test
    void adminListsTenantEnvironments() throws Exception {
        given(desiredStates.all()).willReturn(List.of());

        mvc.perform(get("/api/admin/tenant-environments").with(user("root").roles("USER", "ADMIN")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$").isArray());
    }

    @Test
    void userWithoutAdminIsA403ProblemAndReachesNothing() throws Exception {
        mvc.perform(get("/api/admin/tenant-environments").with(user("alice").roles("USER")))
                .andExpect(status().isForbidden())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(desiredStates).shouldHaveNoInteractions();
    }

    @Test
    void anonymousIsA401Problem() throws Exception {
        mvc.perform(put("/api/admin/tenant-environments/demo/dev").with(csrf()))
                .andExpect(status().isUnauthorized())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(desiredStates).shouldHaveNoInteractions();
    }

    @Test
    void putWithoutBodySetsTheDefaults() throws Exception {
        mvc.perform(put("/api/admin/tenant-environments/demo/dev")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf()))
                .andExpect(status().isOk());
        then(desiredStates).should().put(DEMO, DesiredStateSpec.DEFAULTS);
    }

    @Test
    void putWithAnInvalidNameIsA400ProblemAndSetsNothing() throws Exception {
        mvc.perform(put("/api/admin/tenant-environments/Demo_1/dev")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf()))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/invalid-tenant-environment-name"));
        then(desiredStates).shouldHaveNoInteractions();
    }

    @Test
    void putWithMalformedJsonIsA400Problem() throws Exception {
        mvc.perform(put("/api/admin/tenant-environments/demo/dev")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf())
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"workerImage\":"))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(desiredStates).shouldHaveNoInteractions();
    }

    @Test
    void putWhileBeingDeletedIsA409Problem() throws Exception {
        given(desiredStates.put(DEMO, DesiredStateSpec.DEFAULTS))
                .willThrow(new TenantEnvironmentBeingDeleted(DEMO, TenantEnvironmentStatus.DELETING, "try later."));

        mvc.perform(put("/api/admin/tenant-environments/demo/dev")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf()))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/tenant-environment-being-deleted"));
    }

    @Test
    void aUserCannotDeleteATenantEnvironment() throws Exception {
        mvc.perform(delete("/api/admin/tenant-environments/demo/dev")
                        .with(user("alice").roles("USER"))
                        .with(csrf()))
                .andExpect(status().isForbidden());
        then(desiredStates).should(org.mockito.Mockito.never()).delete(any());
    }
}
