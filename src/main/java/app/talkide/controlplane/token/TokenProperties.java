package app.talkide.controlplane.token;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Worker tokens, identity tokens and the keys behind them.
 *
 * @param issuer the {@code iss} of every token the control plane signs
 * @param audience the {@code aud} a WorkerToken must carry to be accepted on the internal API
 * @param workerTokenTtl lifetime of a minted WorkerToken
 * @param commandTokenTtl lifetime of a command token sent to a worker
 * @param clockSkew how far clocks of signer and verifier may disagree
 * @param identityTokenLifetime how long an issued identity token is valid
 * @param rotationGrace how long a replaced identity token keeps working after a rotation
 * @param identityCacheTtl how long a replica trusts its cached answer about an identity token; bounds
 *     how late a revocation made on another replica takes effect
 * @param mint per-identity mint rate limit
 * @param keys the master keys every signing key is derived from
 */
@Validated
@ConfigurationProperties("talkide.tokens")
public record TokenProperties(
        @NotBlank @DefaultValue("talkide-control-plane") String issuer,
        @NotBlank @DefaultValue("talkide-control-plane") String audience,
        @NotNull @DefaultValue("120s") Duration workerTokenTtl,
        @NotNull @DefaultValue("60s") Duration commandTokenTtl,
        @NotNull @DefaultValue("30s") Duration clockSkew,
        @NotNull @DefaultValue("90d") Duration identityTokenLifetime,
        @NotNull @DefaultValue("15m") Duration rotationGrace,
        @NotNull @DefaultValue("5s") Duration identityCacheTtl,
        @Valid @DefaultValue Mint mint,
        @Valid @DefaultValue Keys keys) {

    /**
     * @param ratePerSecond sustained mints per second allowed per identity token
     * @param burst mints an identity token may make at once before the rate applies
     */
    public record Mint(
            @Positive @DefaultValue("20") double ratePerSecond,
            @Positive @DefaultValue("40") int burst) {}

    /**
     * @param masterKeys {@code kid:base64} pairs (standard or URL-safe base64, at least 32 bytes each); in
     *     local mode, when empty, a development key is generated under the data directory
     * @param activeKid the kid whose derived keys sign new tokens; every listed kid still verifies
     */
    public record Keys(@DefaultValue List<String> masterKeys, String activeKid) {

        @Override
        public String toString() {
            // Never print key material, not even by accident in a bind-error message.
            return "Keys[masterKeys=<" + masterKeys.size() + " redacted>, activeKid=" + activeKid + "]";
        }
    }
}
