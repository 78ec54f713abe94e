package app.talkide.controlplane.membership;

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
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

/** The members admin API as routes: ADMIN only, and a revoke of no membership is a 404 problem. */
@PeopleApiSliceTest(MembershipAdminController.class)
class MembershipAdminSliceTest {

    private static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    private static final Instant AT = Instant.parse("2026-01-02T03:04:05Z");

    @Autowired
    private MockMvc mvc;

    @MockitoBean
    private Memberships memberships;

    @Test
    void adminListsTheMembers() throws Exception {
        given(memberships.membersOf(DEMO)).willReturn(List.of(new Membership(DEMO, "alice", AT)));

        mvc.perform(get("/api/admin/tenant-environments/demo/dev/members")
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$[0].userId").value("alice"))
                .andExpect(jsonPath("$[0].tenant").value("demo"));
    }

    @Test
    void adminGrants() throws Exception {
        given(memberships.grant(DEMO, "bob")).willReturn(new Membership(DEMO, "bob", AT));

        mvc.perform(put("/api/admin/tenant-environments/demo/dev/members/bob")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.userId").value("bob"));
    }

    @Test
    void revokeOfNoMembershipIsA404Problem() throws Exception {
        given(memberships.revoke(DEMO, "bob")).willReturn(false);

        mvc.perform(delete("/api/admin/tenant-environments/demo/dev/members/bob")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf()))
                .andExpect(status().isNotFound())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/membership-not-found"));
    }

    @Test
    void revokeAnswers204() throws Exception {
        given(memberships.revoke(DEMO, "bob")).willReturn(true);

        mvc.perform(delete("/api/admin/tenant-environments/demo/dev/members/bob")
                        .with(user("root").roles("ADMIN"))
                        .with(csrf()))
                .andExpect(status().isNoContent());
    }

    @Test
    void aUserCannotGrantThemselvesAnything() throws Exception {
        mvc.perform(put("/api/admin/tenant-environments/demo/dev/members/alice")
                        .with(user("alice").roles("USER"))
                        .with(csrf()))
                .andExpect(status().isForbidden())
                .andExpect(header().string("Content-Type", MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        then(memberships).shouldHaveNoInteractions();
    }

    @Test
    void anonymousIsA401Problem() throws Exception {
        mvc.perform(get("/api/admin/tenant-environments/demo/dev/members")).andExpect(status().isUnauthorized());
        then(memberships).shouldHaveNoInteractions();
    }

    @Test
    void anInvalidTenantEnvironmentNameIsA400Problem() throws Exception {
        mvc.perform(get("/api/admin/tenant-environments/demo/-dev/members")
                        .with(user("root").roles("ADMIN")))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.type").value("https://talkide.app/problems/invalid-tenant-environment-name"));
        then(memberships).shouldHaveNoInteractions();
    }
}
