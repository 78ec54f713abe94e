package app.talkide.controlplane.token.security;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.WorkerTokenVerdict;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * A refused token gets a 401 problem naming the reason, its body drained and the chain not run; an
 * accepted one runs the chain as an authenticated worker, and the context is cleared afterwards.
 */
class WorkerTokenValidationFilterTest {

    final WorkerPrincipal principal = new WorkerPrincipal(
            TenantEnvironmentId.of("acme", "prod"),
            UUID.randomUUID(),
            "ann",
            "jti",
            Instant.parse("2026-01-01T00:02:00Z"));

    @AfterEach
    void clear() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void anAcceptedTokenRunsTheChainAsTheWorkerAndLeavesNoContextBehind() throws Exception {
        AtomicReference<Authentication> seen = new AtomicReference<>();
        MockFilterChain chain = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
            @Override
            protected void service(
                    jakarta.servlet.http.HttpServletRequest request,
                    jakarta.servlet.http.HttpServletResponse response) {
                seen.set(SecurityContextHolder.getContext().getAuthentication());
            }
        });

        new WorkerTokenValidationFilter(request -> new WorkerTokenVerdict.Accepted(principal))
                .doFilter(new MockHttpServletRequest("GET", "/api/internal/x"), new MockHttpServletResponse(), chain);

        Authentication authentication = seen.get();
        assertThat(authentication).isNotNull();
        assertThat(authentication.isAuthenticated()).isTrue();
        assertThat(authentication.getPrincipal()).isEqualTo(principal);
        assertThat(authentication.getCredentials()).isEqualTo("");
        assertThat(authentication.getName()).isEqualTo("worker:acme/prod");
        assertThat(AuthorityUtils.authorityListToSet(authentication.getAuthorities()))
                .containsExactly("ROLE_WORKER");
        assertThat(SecurityContextHolder.getContext().getAuthentication()).isNull();
    }

    @Test
    void aRefusedTokenIsAnsweredWithA401ProblemAndTheChainDoesNotRun() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/internal/x");
        request.setContent(new byte[10]);
        MockHttpServletResponse response = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();

        new WorkerTokenValidationFilter(any -> new WorkerTokenVerdict.Refused(RejectionReason.BAD_SIGNATURE))
                .doFilter(request, response, chain);

        assertThat(chain.getRequest()).isNull();
        assertThat(response.getStatus()).isEqualTo(401);
        assertThat(response.getHeader("WWW-Authenticate")).isEqualTo("X-Worker-Token error=\"invalid_token\"");
        assertThat(response.getContentAsString())
                .contains("invalid-worker-token")
                .contains("(bad_signature)");
        assertThat(request.getInputStream().available()).isZero();
    }
}
