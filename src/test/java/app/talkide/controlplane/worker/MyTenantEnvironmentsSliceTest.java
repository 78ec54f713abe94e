package app.talkide.controlplane.worker;

import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.PeopleApiSliceTest;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentOffers;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

/** {@code GET /api/me/tenant-environments} as a route: the caller's offered memberships with their worker. */
@PeopleApiSliceTest(MyTenantEnvironmentsController.class)
class MyTenantEnvironmentsSliceTest {

    private static final TenantEnvironmentId OFFERED = TenantEnvironmentId.of("demo", "dev");
    private static final TenantEnvironmentId NOT_OFFERED = TenantEnvironmentId.of("demo", "next");
    private static final Instant AT = Instant.parse("2026-01-02T03:04:05Z");

    @Autowired
    private MockMvc mvc;

    @MockitoBean
    private Memberships memberships;

    @MockitoBean
    private TenantEnvironments tenantEnvironments;

    @MockitoBean
    private WorkerLocator workers;

    @MockitoBean
    private TenantEnvironmentOffers offers;

    @Test
    void listsOnlyTheCallersOfferedTenantEnvironmentsWithTheirWorkers() throws Exception {
        given(memberships.tenantEnvironmentsOf("alice")).willReturn(List.of(OFFERED, NOT_OFFERED));
        given(offers.offered(OFFERED)).willReturn(true);
        given(tenantEnvironments.find(OFFERED))
                .willReturn(Optional.of(new TenantEnvironment(OFFERED, TenantEnvironmentStatus.READY, null, AT, AT)));
        given(workers.locate(OFFERED))
                .willReturn(new WorkerLocation(
                        OFFERED, URI.create("http://127.0.0.1:1"), WorkerReadiness.STARTING, "rolling"));

        mvc.perform(get("/api/me/tenant-environments").with(user("alice").roles("USER")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.length()").value(1))
                .andExpect(jsonPath("$[0].env").value("dev"))
                .andExpect(jsonPath("$[0].status").value("READY"))
                .andExpect(jsonPath("$[0].worker").value("STARTING"))
                .andExpect(jsonPath("$[0].workerDetail").value("rolling"));
        then(workers).should(org.mockito.Mockito.never()).locate(NOT_OFFERED);
    }

    @Test
    void anonymousIsA401Problem() throws Exception {
        mvc.perform(get("/api/me/tenant-environments"))
                .andExpect(status().isUnauthorized())
                .andExpect(header().string("Content-Type", "application/problem+json"));
        then(memberships).shouldHaveNoInteractions();
    }
}
