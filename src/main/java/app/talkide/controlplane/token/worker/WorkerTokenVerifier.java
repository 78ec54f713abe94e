package app.talkide.controlplane.token.worker;

import static app.talkide.controlplane.token.worker.WorkerTokenFormat.*;

import app.talkide.controlplane.tenant.InvalidTenantEnvironmentName;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.keys.DerivedKey;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import app.talkide.controlplane.workercontract.CompactJws;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Verifies a WorkerToken completely, or says why not. Order matters: the size and shape are checked
 * before anything is parsed, and the signature before any claim is believed. The tenant-environment
 * named in the (not yet trusted) claims only selects the key; a token claiming another tenant-environment
 * than the one whose key signed it fails the signature check.
 */
@Component
public class WorkerTokenVerifier {

    private final DerivedKeys keys;
    private final KnownTenantEnvironments known;
    private final TokenProperties properties;
    private final Clock clock;

    public WorkerTokenVerifier(
            DerivedKeys keys, KnownTenantEnvironments known, TokenProperties properties, Clock clock) {
        this.keys = keys;
        this.known = known;
        this.properties = properties;
        this.clock = clock;
    }

    public WorkerPrincipal verify(@Nullable String token) throws WorkerTokenRejected {
        if (token == null || token.isBlank()) {
            throw new WorkerTokenRejected(RejectionReason.MISSING);
        }
        if (token.length() > MAX_LENGTH) {
            throw new WorkerTokenRejected(RejectionReason.OVERSIZED);
        }
        CompactJws jwt = parse(token);
        JWSHeader header = jwt.header();
        if (!JWSAlgorithm.HS256.equals(header.getAlgorithm())) {
            throw new WorkerTokenRejected(RejectionReason.BAD_ALGORITHM);
        }
        if (!TYPE.equals(header.getType())) {
            throw new WorkerTokenRejected(RejectionReason.WRONG_TYPE);
        }
        if (header.getKeyID() == null) {
            throw new WorkerTokenRejected(RejectionReason.UNKNOWN_KID);
        }
        JWTClaimsSet claims = claims(jwt);
        TenantEnvironmentId tenantEnvironment =
                tenantEnvironment(stringClaim(claims, TENANT), stringClaim(claims, ENV));
        if (!known.exists(tenantEnvironment)) {
            // Before deriving: the name is not trusted yet, and a key per made-up name is heap for the taking.
            throw new WorkerTokenRejected(RejectionReason.UNKNOWN_TENANT_ENVIRONMENT);
        }
        DerivedKey key = keys.verifying(header.getKeyID(), KeyPurpose.WORKER_TOKEN, tenantEnvironment)
                .orElseThrow(() -> new WorkerTokenRejected(RejectionReason.UNKNOWN_KID));
        if (!signatureValid(jwt, key)) {
            throw new WorkerTokenRejected(RejectionReason.BAD_SIGNATURE);
        }
        checkIssuerAndAudience(claims);
        Instant expiresAt = checkTimes(claims);
        if (!(SUBJECT_PREFIX + tenantEnvironment.path()).equals(claims.getSubject())) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
        String user = stringClaim(claims, USER);
        String jti = claims.getJWTID();
        if (user.isBlank() || jti == null) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
        return new WorkerPrincipal(
                tenantEnvironment, conversationId(stringClaim(claims, CONVERSATION)), user, jti, expiresAt);
    }

    private static CompactJws parse(String token) throws WorkerTokenRejected {
        return CompactJws.parseStrictly(token)
                .orElseThrow(() -> new WorkerTokenRejected(
                        isUnsigned(token) ? RejectionReason.BAD_ALGORITHM : RejectionReason.MALFORMED));
    }

    private static boolean isUnsigned(String token) {
        try {
            return JWTParser.parse(token) instanceof PlainJWT;
        } catch (ParseException | RuntimeException e) {
            return false;
        }
    }

    private static JWTClaimsSet claims(CompactJws jwt) throws WorkerTokenRejected {
        try {
            return jwt.claims();
        } catch (ParseException | RuntimeException e) {
            throw new WorkerTokenRejected(RejectionReason.MALFORMED);
        }
    }

    private static String stringClaim(JWTClaimsSet claims, String name) throws WorkerTokenRejected {
        try {
            String value = claims.getStringClaim(name);
            if (value == null) {
                throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
            }
            return value;
        } catch (ParseException notAString) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
    }

    private static TenantEnvironmentId tenantEnvironment(String tenant, String env) throws WorkerTokenRejected {
        try {
            return TenantEnvironmentId.of(tenant, env);
        } catch (InvalidTenantEnvironmentName e) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
    }

    private static UUID conversationId(String value) throws WorkerTokenRejected {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
    }

    private static boolean signatureValid(CompactJws jwt, DerivedKey key) {
        try {
            // MACVerifier compares in constant time and refuses unknown critical header parameters.
            return jwt.verify(key.verifier());
        } catch (JOSEException | RuntimeException e) {
            return false;
        }
    }

    private void checkIssuerAndAudience(JWTClaimsSet claims) throws WorkerTokenRejected {
        if (!properties.issuer().equals(claims.getIssuer())) {
            throw new WorkerTokenRejected(RejectionReason.WRONG_ISSUER);
        }
        List<String> audience = claims.getAudience();
        if (audience == null || !audience.contains(properties.audience())) {
            throw new WorkerTokenRejected(RejectionReason.WRONG_AUDIENCE);
        }
    }

    private Instant checkTimes(JWTClaimsSet claims) throws WorkerTokenRejected {
        Instant now = clock.instant();
        Duration skew = properties.clockSkew();
        Date exp = claims.getExpirationTime();
        Date iat = claims.getIssueTime();
        if (exp == null || iat == null) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
        Instant expiresAt = exp.toInstant();
        if (!now.isBefore(expiresAt.plus(skew))) {
            throw new WorkerTokenRejected(RejectionReason.EXPIRED);
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && nbf.toInstant().isAfter(now.plus(skew))) {
            throw new WorkerTokenRejected(RejectionReason.NOT_YET_VALID);
        }
        if (iat.toInstant().isAfter(now.plus(skew))) {
            throw new WorkerTokenRejected(RejectionReason.ISSUED_IN_FUTURE);
        }
        // A validly signed token never lives longer than we mint them; a longer one was not minted here.
        if (Duration.between(iat.toInstant(), expiresAt)
                        .compareTo(properties.workerTokenTtl().plus(skew))
                > 0) {
            throw new WorkerTokenRejected(RejectionReason.BAD_CLAIMS);
        }
        return expiresAt;
    }
}
