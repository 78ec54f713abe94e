package app.talkide.controlplane.builds;

import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import app.talkide.controlplane.support.PeopleApiSliceTest;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentNotFound;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

/** The builds admin list as a route: ADMIN only, limit clamped to 1–200, unknown tenant-environment 404. */
@PeopleApiSliceTest(BuildAdminController.class)
class BuildAdminSliceTest {

    private static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Autowired
    private MockMvc mvc;

    @MockitoBean
    private Builds builds;

    @MockitoBean
    private TenantEnvironments tenantEnvironments;

    @Test
    void limitIsClampedToTwoHundred() throws Exception {
        given(builds.ofTenantEnvironment(DEMO, 0, 200)).willReturn(List.of());

        mvc.perform(get("/api/admin/tenant-environments/demo/dev/builds")
                        .param("limit", "5000")
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$").isEmpty());
        then(builds).should().ofTenantEnvironment(DEMO, 0, 200);
    }

    @Test
    void anUnknownTenantEnvironmentIsA404Problem() throws Exception {
        given(tenantEnvironments.get(DEMO)).willThrow(new TenantEnvironmentNotFound(DEMO));

        mvc.perform(get("/api/admin/tenant-environments/demo/dev/builds")
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/tenant-environment-not-found"));
        then(builds).shouldHaveNoInteractions();
    }

    @Test
    void aLimitThatIsNotANumberIsA400Problem() throws Exception {
        mvc.perform(get("/api/admin/tenant-environments/demo/dev/builds")
                        .param("limit", "many")
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isBadRequest())
                .andExpect(header().string("Content-Type", "application/problem+json"));
        then(builds).shouldHaveNoInteractions();
    }

    @Test
    void aUserIsA403Problem() throws Exception {
        mvc.perform(get("/api/admin/tenant-environments/demo/dev/builds")
                        .with(user("alice").roles("USER")))
                .andExpect(status().isForbidden());
        then(builds).shouldHaveNoInteractions();
    }

    @Test
    void anonymousIsA401Problem() throws Exception {
        mvc.perform(get("/api/admin/tenant-environments/demo/dev/builds")).andExpect(status().isUnauthorized());
        then(builds).shouldHaveNoInteractions();
    }
}
