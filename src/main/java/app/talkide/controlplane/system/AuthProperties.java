package app.talkide.controlplane.system;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How people authenticate.
 *
 * @param localUsers users of local mode's form login; passwords are stored only as bcrypt hashes
 * @param jwt how production maps the identity provider's JWT claims to a user and roles
 */
@Validated
@ConfigurationProperties("talkide.auth")
public record AuthProperties(
        @Valid @DefaultValue List<LocalUser> localUsers,
        @Valid @DefaultValue Jwt jwt) {

    /**
     * @param username the login name, also the user id conversations and budgets are kept under
     * @param passwordHash a {@code {bcrypt}} hash, e.g. from {@code htpasswd -bnBC 10 "" secret}
     * @param roles {@code USER} for the console, {@code ADMIN} for the admin API
     */
    public record LocalUser(
            @NotBlank String username,
            @NotBlank String passwordHash,
            @NotEmpty @DefaultValue("USER") Set<String> roles) {}

    /**
     * @param principalClaim the claim that names the user (the user id)
     * @param rolesClaim the claim listing roles, e.g. {@code ["USER","ADMIN"]}
     */
    public record Jwt(
            @NotBlank @DefaultValue("sub") String principalClaim,
            @NotBlank @DefaultValue("roles") String rolesClaim) {}
}
