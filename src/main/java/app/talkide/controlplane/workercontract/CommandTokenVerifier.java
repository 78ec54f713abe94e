package app.talkide.controlplane.workercontract;

import static app.talkide.controlplane.workercontract.CommandTokenFormat.*;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The worker's side: accepts a command only if it was signed with this tenant-environment's command
 * key, for exactly this method, path and body, within its lifetime, and never seen before.
 */
public final class CommandTokenVerifier {

    /** Longest lifetime accepted; bounds how long the replay cache must remember an id. */
    private static final Duration MAX_LIFETIME = Duration.ofMinutes(5);

    private final CommandKeySet keys;
    private final TenantEnvironmentId tenantEnvironment;
    private final Clock clock;
    private final Duration clockSkew;
    private final ReplayCache replays;

    public CommandTokenVerifier(
            CommandKeySet keys,
            TenantEnvironmentId tenantEnvironment,
            Clock clock,
            Duration clockSkew,
            ReplayCache replays) {
        this.keys = keys;
        this.tenantEnvironment = tenantEnvironment;
        this.clock = clock;
        this.clockSkew = clockSkew;
        this.replays = replays;
    }

    /**
     * @param target the request path with its query string, exactly as received (e.g. {@code /sessions/42/messages})
     */
    public void verify(@Nullable String token, String method, String target, byte[] body) throws CommandTokenRejected {
        if (token == null || token.isBlank()) {
            throw new CommandTokenRejected(CommandRejection.MISSING);
        }
        if (token.length() > MAX_LENGTH) {
            throw new CommandTokenRejected(CommandRejection.OVERSIZED);
        }
        CompactJws jwt = parse(token);
        JWSHeader header = jwt.header();
        if (!JWSAlgorithm.HS256.equals(header.getAlgorithm())) {
            throw new CommandTokenRejected(CommandRejection.BAD_ALGORITHM);
        }
        if (!TYPE.equals(header.getType())) {
            throw new CommandTokenRejected(CommandRejection.WRONG_TYPE);
        }
        byte[] key =
                header.getKeyID() == null ? null : keys.key(header.getKeyID()).orElse(null);
        if (key == null) {
            throw new CommandTokenRejected(CommandRejection.UNKNOWN_KID);
        }
        if (!signatureValid(jwt, key)) {
            throw new CommandTokenRejected(CommandRejection.BAD_SIGNATURE);
        }
        JWTClaimsSet claims = claims(jwt);
        List<String> audience = claims.getAudience();
        if (audience == null || !audience.contains(AUDIENCE)) {
            throw new CommandTokenRejected(CommandRejection.WRONG_AUDIENCE);
        }
        if (!tenantEnvironment.tenant().equals(claims.getClaim(TENANT))
                || !tenantEnvironment.env().equals(claims.getClaim(ENV))) {
            throw new CommandTokenRejected(CommandRejection.WRONG_TENANT_ENVIRONMENT);
        }
        Instant now = clock.instant();
        Instant expiresAt = checkTimes(claims, now);
        if (!method.equalsIgnoreCase(String.valueOf(claims.getClaim(METHOD)))) {
            throw new CommandTokenRejected(CommandRejection.METHOD_MISMATCH);
        }
        if (!target.equals(claims.getClaim(TARGET))) {
            throw new CommandTokenRejected(CommandRejection.PATH_MISMATCH);
        }
        if (!bodyHash(body).equals(claims.getClaim(BODY_HASH))) {
            throw new CommandTokenRejected(CommandRejection.BODY_MISMATCH);
        }
        String jti = claims.getJWTID();
        if (jti == null) {
            throw new CommandTokenRejected(CommandRejection.MALFORMED);
        }
        // Last, so a token refused for any other reason does not use up its id.
        if (!replays.firstUse(jti, expiresAt.plus(clockSkew), now)) {
            throw new CommandTokenRejected(CommandRejection.REPLAYED);
        }
    }

    private static CompactJws parse(String token) throws CommandTokenRejected {
        return CompactJws.parseStrictly(token).orElseThrow(() -> new CommandTokenRejected(CommandRejection.MALFORMED));
    }

    private static JWTClaimsSet claims(CompactJws jwt) throws CommandTokenRejected {
        try {
            return jwt.claims();
        } catch (ParseException | RuntimeException e) {
            throw new CommandTokenRejected(CommandRejection.MALFORMED);
        }
    }

    private static boolean signatureValid(CompactJws jwt, byte[] key) {
        try {
            return jwt.verify(new MACVerifier(key));
        } catch (JOSEException | RuntimeException e) {
            return false;
        }
    }

    private Instant checkTimes(JWTClaimsSet claims, Instant now) throws CommandTokenRejected {
        Date exp = claims.getExpirationTime();
        Date iat = claims.getIssueTime();
        if (exp == null || iat == null) {
            throw new CommandTokenRejected(CommandRejection.MALFORMED);
        }
        if (!now.isBefore(exp.toInstant().plus(clockSkew))) {
            throw new CommandTokenRejected(CommandRejection.EXPIRED);
        }
        if (iat.toInstant().isAfter(now.plus(clockSkew))) {
            throw new CommandTokenRejected(CommandRejection.ISSUED_IN_FUTURE);
        }
        if (Duration.between(iat.toInstant(), exp.toInstant()).compareTo(MAX_LIFETIME) > 0) {
            throw new CommandTokenRejected(CommandRejection.EXPIRED);
        }
        return exp.toInstant();
    }
}
