package app.talkide.controlplane.token.mint;

import app.talkide.controlplane.system.UnreadBody;
import app.talkide.controlplane.token.identity.IdentityTokens;
import app.talkide.controlplane.token.identity.VerifiedIdentity;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Verifies the mint caller's identity token as the {@link VerifiedIdentity} argument of the mint
 * endpoint. Spring resolves arguments in declaration order, so with this parameter before the body
 * an unauthenticated caller gets 401 before its body is read or validated: it learns nothing about
 * what a valid request looks like.
 */
class MintCallerResolver implements HandlerMethodArgumentResolver {

    private static final String BEARER = "Bearer ";

    private final IdentityTokens identityTokens;
    private final MeterRegistry meters;

    MintCallerResolver(IdentityTokens identityTokens, MeterRegistry meters) {
        this.identityTokens = identityTokens;
        this.meters = meters;
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == VerifiedIdentity.class
                && parameter.getContainingClass() == MintController.class;
    }

    @Override
    public VerifiedIdentity resolveArgument(
            MethodParameter parameter,
            @Nullable ModelAndViewContainer container,
            NativeWebRequest request,
            @Nullable WebDataBinderFactory binderFactory) {
        return identityTokens
                .verify(bearer(request.getHeader(HttpHeaders.AUTHORIZATION)))
                .orElseThrow(() -> {
                    meters.counter("talkide.worker.token.mints", "outcome", "unauthenticated")
                            .increment();
                    // Refused before its body was read: keep the connection usable for the caller's next request.
                    HttpServletRequest servletRequest = request.getNativeRequest(HttpServletRequest.class);
                    HttpServletResponse servletResponse = request.getNativeResponse(HttpServletResponse.class);
                    if (servletRequest != null && servletResponse != null) {
                        UnreadBody.drainOrClose(servletRequest, servletResponse);
                    }
                    return new InvalidIdentityToken();
                });
    }

    private static @Nullable String bearer(@Nullable String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return authorization.substring(BEARER.length()).trim();
    }
}
