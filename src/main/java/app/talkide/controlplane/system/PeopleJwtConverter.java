package app.talkide.controlplane.system;

import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtGrantedAuthoritiesConverter;

/**
 * Turns a verified JWT into the signed-in person. The principal's name, which every feature uses as the
 * user id, is the configured claim ({@code sub} by default); roles come from the roles claim. A token
 * without a user claim names nobody and is refused (401) rather than let through nameless.
 */
class PeopleJwtConverter implements Converter<Jwt, AbstractAuthenticationToken> {

    private final String principalClaim;
    private final JwtAuthenticationConverter delegate = new JwtAuthenticationConverter();

    PeopleJwtConverter(AuthProperties.Jwt settings) {
        this.principalClaim = settings.principalClaim();
        JwtGrantedAuthoritiesConverter roles = new JwtGrantedAuthoritiesConverter();
        roles.setAuthoritiesClaimName(settings.rolesClaim());
        roles.setAuthorityPrefix("ROLE_");
        delegate.setJwtGrantedAuthoritiesConverter(roles);
        delegate.setPrincipalClaimName(principalClaim);
    }

    @Override
    public AbstractAuthenticationToken convert(Jwt jwt) {
        String userId = jwt.getClaimAsString(principalClaim);
        if (userId == null || userId.isBlank()) {
            throw new InvalidBearerTokenException("The token names no user (claim " + principalClaim + ")");
        }
        return delegate.convert(jwt);
    }
}
