package app.talkide.controlplane.console;

import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import app.talkide.controlplane.support.PeopleApiSliceTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/** {@code GET /api/console/session}: who is signed in and whether the console shows the admin link. */
@PeopleApiSliceTest(ConsoleSessionController.class)
class ConsoleSessionSliceTest {

    @Autowired
    private MockMvc mvc;

    @Test
    void aUserIsNotAdmin() throws Exception {
        mvc.perform(get("/api/console/session").with(user("alice").roles("USER")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.userId").value("alice"))
                .andExpect(jsonPath("$.admin").value(false));
    }

    @Test
    void anAdminIsAdmin() throws Exception {
        mvc.perform(get("/api/console/session").with(user("root").roles("USER", "ADMIN")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.admin").value(true));
    }

    @Test
    void anonymousIsA401ProblemNotARedirectToTheLoginPage() throws Exception {
        mvc.perform(get("/api/console/session"))
                .andExpect(status().isUnauthorized())
                .andExpect(header().string("Content-Type", "application/problem+json"));
    }
}
