package app.talkide.controlplane.token.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import app.talkide.controlplane.token.keys.TestKeys;
import com.nimbusds.jwt.JWTClaimsSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each time check at its edge, one second either side: the clock skew is tolerance granted exactly once,
 * in the caller's favour up to the edge and not a second past it (JWT times are whole seconds).
 */
class WorkerTokenTimeBoundariesTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");
    static final Duration SECOND = Duration.ofSeconds(1);

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final TokenProperties properties = TokenTestSupport.properties();
    final Duration skew = properties.clockSkew();
    final Duration ttl = properties.workerTokenTtl();
    final DerivedKeys keys = TestKeys.derivedKeys(properties);
    final WorkerTokenVerifier verifier = new WorkerTokenVerifier(keys, ACME::equals, properties, clock);

    @Test
    void tokenIsValidUntilOneSecondBeforeExpiryPlusSkewAndExpiredAtIt() throws Exception {
        Instant issued = clock.instant();
        String token = sign(claims(issued));
        Instant expiry = issued.plus(ttl);

        clock.set(expiry.plus(skew).minus(SECOND));
        assertThat(verifier.verify(token).expiresAt()).isEqualTo(expiry);

        clock.set(expiry.plus(skew));
        assertRejected(token, RejectionReason.EXPIRED);
    }

    @Test
    void notBeforeUpToTheSkewAheadIsAcceptedAndASecondMoreIsNot() throws Exception {
        Instant now = clock.instant();

        assertAccepted(sign(claims(now).notBeforeTime(Date.from(now.plus(skew))).build()));
        assertRejected(
                sign(claims(now)
                        .notBeforeTime(Date.from(now.plus(skew).plus(SECOND)))
                        .build()),
                RejectionReason.NOT_YET_VALID);
    }

    @Test
    void tokenWithoutNotBeforeIsAccepted() throws Exception {
        assertAccepted(sign(claims(clock.instant()).notBeforeTime(null).build()));
    }

    @Test
    void issuedAtUpToTheSkewAheadIsAcceptedAndASecondMoreIsNot() throws Exception {
        Instant edge = clock.instant().plus(skew);

        assertAccepted(sign(claims(edge).notBeforeTime(null).build()));
        assertRejected(sign(claims(edge.plus(SECOND)).notBeforeTime(null).build()), RejectionReason.ISSUED_IN_FUTURE);
    }

    @Test
    void lifetimeUpToTheTtlPlusSkewIsAcceptedAndASecondMoreIsNot() throws Exception {
        Instant now = clock.instant();
        Instant longest = now.plus(ttl).plus(skew);

        assertAccepted(sign(claims(now).expirationTime(Date.from(longest)).build()));
        assertRejected(
                sign(claims(now).expirationTime(Date.from(longest.plus(SECOND))).build()), RejectionReason.BAD_CLAIMS);
    }

    @Test
    void tokenWithoutExpiryOrIssuedAtIsRefused() throws Exception {
        Instant now = clock.instant();

        assertRejected(sign(claims(now).expirationTime(null).build()), RejectionReason.BAD_CLAIMS);
        assertRejected(sign(claims(now).issueTime(null).build()), RejectionReason.BAD_CLAIMS);
    }

    private JWTClaimsSet.Builder claims(Instant issuedAt) {
        return WorkerTokenForge.validClaims("acme", "dev", UUID.randomUUID(), "alice", issuedAt);
    }

    private String sign(JWTClaimsSet.Builder claims) {
        return sign(claims.build());
    }

    private String sign(JWTClaimsSet claims) {
        return WorkerTokenForge.sign(keys.signing(KeyPurpose.WORKER_TOKEN, ACME).secret(), "k1", claims);
    }

    private void assertAccepted(String token) throws Exception {
        assertThat(verifier.verify(token).tenantEnvironment()).isEqualTo(ACME);
    }

    private void assertRejected(String token, RejectionReason reason) {
        assertThatThrownBy(() -> verifier.verify(token))
                .isInstanceOfSatisfying(
                        WorkerTokenRejected.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }
}
