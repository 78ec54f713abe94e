package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;

/** Which claim names the user and which carries the roles (the HTTP path is in {@code ProductionJwtTest}). */
class PeopleJwtConverterTest {

    @Test
    void theSubjectIsTheUserIdByDefault() {
        Authentication user = new PeopleJwtConverter(new AuthProperties.Jwt("sub", "roles"))
                .convert(jwt(Map.of("sub", "user-1", "preferred_username", "alice", "roles", List.of("USER"))));

        assertThat(user.getName()).isEqualTo("user-1");
        assertThat(roles(user)).containsExactly("ROLE_USER");
    }

    @Test
    void anotherClaimCanNameTheUserAndCarryTheRoles() {
        Authentication user = new PeopleJwtConverter(new AuthProperties.Jwt("oid", "groups"))
                .convert(jwt(Map.of("sub", "pairwise-x", "oid", "user-2", "groups", List.of("ADMIN"))));

        assertThat(user.getName()).isEqualTo("user-2");
        assertThat(roles(user)).containsExactly("ROLE_ADMIN");
    }

    @Test
    void aTokenWithoutTheUserClaimIsRefused() {
        PeopleJwtConverter converter = new PeopleJwtConverter(new AuthProperties.Jwt("oid", "roles"));

        assertThatThrownBy(() -> converter.convert(jwt(Map.of("sub", "someone"))))
                .isInstanceOf(InvalidBearerTokenException.class);
        assertThatThrownBy(() -> converter.convert(jwt(Map.of("sub", "someone", "oid", " "))))
                .isInstanceOf(InvalidBearerTokenException.class);
    }

    /** The roles among the authorities (Spring Security adds a {@code FACTOR_BEARER} of its own). */
    private static List<String> roles(Authentication user) {
        return user.getAuthorities().stream()
                .map(GrantedAuthority::getAuthority)
                .filter(authority -> authority.startsWith("ROLE_"))
                .toList();
    }

    private static Jwt jwt(Map<String, Object> claims) {
        Instant now = Instant.now();
        return Jwt.withTokenValue("t")
                .header("alg", "RS256")
                .claims(all -> all.putAll(claims))
                .issuedAt(now)
                .expiresAt(now.plusSeconds(60))
                .build();
    }
}
