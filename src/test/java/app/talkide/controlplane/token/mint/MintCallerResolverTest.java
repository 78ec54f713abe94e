package app.talkide.controlplane.token.mint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.token.identity.VerifiedIdentity;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.ServletWebRequest;

/** The mint caller's bearer token: read case-insensitively, refused with a count and a drained body. */
class MintCallerResolverTest {

    final IdentityTokens identityTokens = mock(IdentityTokens.class);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final MintCallerResolver resolver = new MintCallerResolver(identityTokens, meters);
    final VerifiedIdentity identity = new VerifiedIdentity(UUID.randomUUID(), TenantEnvironmentId.of("acme", "prod"));

    @Test
    void resolvesOnlyTheMintEndpointsIdentityParameter() throws Exception {
        var mint = MintController.class.getDeclaredMethod("mint", VerifiedIdentity.class, MintRequest.class);
        var elsewhere = MintCallerResolverTest.class.getDeclaredMethod("elsewhere", VerifiedIdentity.class);

        assertThat(resolver.supportsParameter(new MethodParameter(mint, 0))).isTrue();
        assertThat(resolver.supportsParameter(new MethodParameter(mint, 1))).isFalse();
        assertThat(resolver.supportsParameter(new MethodParameter(elsewhere, 0)))
                .isFalse();
    }

    @Test
    void theBearerSchemeIsCaseInsensitiveAndTheTokenTrimmed() {
        when(identityTokens.verify("tkwi_abc")).thenReturn(Optional.of(identity));

        assertThat(resolve("Bearer tkwi_abc")).isEqualTo(identity);
        assertThat(resolve("bEARER  tkwi_abc ")).isEqualTo(identity);
    }

    @Test
    void aMissingOrInvalidTokenIsRefusedCountedAndItsBodyDrained() throws Exception {
        when(identityTokens.verify(null)).thenReturn(Optional.empty());
        when(identityTokens.verify("tkwi_bad")).thenReturn(Optional.empty());

        for (String authorization : new String[] {null, "Basic tkwi_abc", "Bearer", "Bearer tkwi_bad"}) {
            MockHttpServletRequest request = request(authorization);
            request.setContent(new byte[10]);
            assertThatThrownBy(() -> resolver.resolveArgument(
                            null, null, new ServletWebRequest(request, new MockHttpServletResponse()), null))
                    .as(authorization)
                    .isInstanceOfSatisfying(
                            InvalidIdentityToken.class,
                            e -> assertThat(e.getHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE))
                                    .isEqualTo("Bearer error=\"invalid_token\""));
            assertThat(request.getInputStream().available()).as(authorization).isZero();
        }
        // no bearer token at all: the verifier is asked about none, not about an empty one
        verify(identityTokens, times(3)).verify(null);
        assertThat(meters.counter("talkide.worker.token.mints", "outcome", "unauthenticated")
                        .count())
                .isEqualTo(4);
    }

    private VerifiedIdentity resolve(String authorization) {
        return resolver.resolveArgument(
                null, null, new ServletWebRequest(request(authorization), new MockHttpServletResponse()), null);
    }

    private static MockHttpServletRequest request(String authorization) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/v1/worker-gateway/token/mint");
        if (authorization != null) {
            request.addHeader(HttpHeaders.AUTHORIZATION, authorization);
        }
        return request;
    }

    @SuppressWarnings("unused")
    private void elsewhere(VerifiedIdentity identity) {}
}
