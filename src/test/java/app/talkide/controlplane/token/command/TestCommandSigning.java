package app.talkide.controlplane.token.command;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.keys.TestKeys;
import app.talkide.controlplane.workercontract.CommandKeySet;
import app.talkide.controlplane.workercontract.CommandTokenFormat;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.UUID;

/**
 * Command tokens for tests that play the control plane against a worker: from the test master keys, or
 * (for the conformance test pointed at any worker) from a worker's {@code command-key} text alone.
 */
public final class TestCommandSigning {

    /** Signs a call: method, path with query, exact body bytes. */
    @FunctionalInterface
    public interface Signer {
        String sign(String method, String target, byte[] body);
    }

    private TestCommandSigning() {}

    /** The command keys the test master keys give a tenant-environment's worker, as its Secret holds them. */
    public static String workerCommandKey(TenantEnvironmentId tenantEnvironment) {
        TokenProperties properties = TokenTestSupport.properties();
        return new CommandKeys(TestKeys.derivedKeys(properties))
                .forWorker(tenantEnvironment)
                .format();
    }

    /** Signs with the first (active) key of a {@code command-key} text, as the control plane would. */
    public static Signer signer(String commandKey, TenantEnvironmentId tenantEnvironment, Clock clock) {
        Map.Entry<String, byte[]> active = firstKey(commandKey);
        return (method, target, body) -> {
            Instant now = clock.instant();
            JWTClaimsSet claims = new JWTClaimsSet.Builder()
                    .issuer("talkide-control-plane")
                    .audience(CommandTokenFormat.AUDIENCE)
                    .claim(CommandTokenFormat.TENANT, tenantEnvironment.tenant())
                    .claim(CommandTokenFormat.ENV, tenantEnvironment.env())
                    .claim(CommandTokenFormat.METHOD, method)
                    .claim(CommandTokenFormat.TARGET, target)
                    .claim(CommandTokenFormat.BODY_HASH, CommandTokenFormat.bodyHash(body))
                    .issueTime(Date.from(now))
                    .expirationTime(Date.from(now.plus(Duration.ofSeconds(60))))
                    .jwtID(UUID.randomUUID().toString())
                    .build();
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.HS256)
                            .keyID(active.getKey())
                            .type(CommandTokenFormat.TYPE)
                            .build(),
                    claims);
            try {
                jwt.sign(new MACSigner(active.getValue()));
            } catch (JOSEException e) {
                throw new IllegalStateException(e);
            }
            return jwt.serialize();
        };
    }

    private static Map.Entry<String, byte[]> firstKey(String commandKey) {
        String first = commandKey.split(",")[0];
        String kid = first.substring(0, first.indexOf(':')).trim();
        return Map.entry(kid, CommandKeySet.parse(first).key(kid).orElseThrow());
    }
}
