package app.talkide.controlplane.token.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.RejectionReason;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.WorkerPrincipal;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.KeyPurpose;
import app.talkide.controlplane.token.keys.TestKeys;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class WorkerTokenVerifierTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");
    static final TenantEnvironmentId GLOBEX = TenantEnvironmentId.of("globex", "dev");
    static final UUID CONVERSATION = UUID.randomUUID();
    static final Set<TenantEnvironmentId> KNOWN = Set.of(ACME, GLOBEX);

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final TokenProperties properties = TokenTestSupport.properties();
    final DerivedKeys keys = TestKeys.derivedKeys(properties);
    final WorkerTokenIssuer issuer = new WorkerTokenIssuer(keys, properties, clock);
    final WorkerTokenVerifier verifier = new WorkerTokenVerifier(keys, KNOWN::contains, properties, clock);

    @Test
    void mintedTokenVerifiesToItsScope() throws Exception {
        IssuedWorkerToken token = issuer.issue(new ConversationScope(CONVERSATION, ACME, "alice"));

        WorkerPrincipal principal = verifier.verify(token.token());

        assertThat(principal.tenantEnvironment()).isEqualTo(ACME);
        assertThat(principal.conversationId()).isEqualTo(CONVERSATION);
        assertThat(principal.userId()).isEqualTo("alice");
        assertThat(principal.expiresAt()).isEqualTo(clock.instant().plusSeconds(120));
        SignedJWT jwt = SignedJWT.parse(token.token());
        assertThat(jwt.getHeader().getKeyID()).isEqualTo("k1");
        assertThat(jwt.getJWTClaimsSet().getClaims())
                .containsKeys("iss", "aud", "sub", "tid", "eid", "cid", "uid", "iat", "nbf", "exp", "jti")
                .containsEntry("sub", "worker:acme/dev");
    }

    @Test
    void tamperedSignatureIsRejected() {
        String token = issuer.issue(scope()).token();
        char last = token.charAt(token.length() - 2);
        String tampered =
                token.substring(0, token.length() - 2) + (last == 'A' ? 'B' : 'A') + token.charAt(token.length() - 1);
        assertRejected(tampered, RejectionReason.BAD_SIGNATURE);
    }

    @Test
    void tamperedPayloadIsRejected() throws Exception {
        String[] parts = issuer.issue(scope()).token().split("\\.");
        JWTClaimsSet claims = new JWTClaimsSet.Builder(
                        SignedJWT.parse(String.join(".", parts)).getJWTClaimsSet())
                .claim("uid", "mallory")
                .build();
        String payload = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(claims.toString().getBytes());
        assertRejected(parts[0] + "." + payload + "." + parts[2], RejectionReason.BAD_SIGNATURE);
    }

    @Test
    void algNoneIsRejected() {
        String unsigned = new PlainJWT(claims().build()).serialize();
        assertRejected(unsigned, RejectionReason.BAD_ALGORITHM);
    }

    @Test
    void rs256IsRejected() throws Exception {
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("k1").build(), claims().build());
        jwt.sign(new RSASSASigner(new RSAKeyGenerator(2048).generate()));
        assertRejected(jwt.serialize(), RejectionReason.BAD_ALGORITHM);
    }

    @Test
    void hs512IsRejected() throws Exception {
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.HS512).keyID("k1").build(), claims().build());
        jwt.sign(new MACSigner(new byte[64]));
        assertRejected(jwt.serialize(), RejectionReason.BAD_ALGORITHM);
    }

    @Test
    void commandTokenTypeIsNotAWorkerToken() {
        String token = WorkerTokenForge.sign(
                acmeKey(), h -> h.keyID("k1").type(new com.nimbusds.jose.JOSEObjectType("cmd+jwt")), claims().build());
        assertRejected(token, RejectionReason.WRONG_TYPE);
    }

    @Test
    void expiredTokenIsRejectedAfterSkew() {
        String token = issuer.issue(scope()).token();
        clock.advance(Duration.ofSeconds(120 + 29));
        assertThat(verifies(token)).isTrue();
        clock.advance(Duration.ofSeconds(2));
        assertRejected(token, RejectionReason.EXPIRED);
    }

    @Test
    void notYetValidTokenIsRejected() {
        Instant later = clock.instant().plusSeconds(60);
        String token = WorkerTokenForge.sign(
                acmeKey(), "k1", claims().notBeforeTime(Date.from(later)).build());
        assertRejected(token, RejectionReason.NOT_YET_VALID);
    }

    @Test
    void farFutureIssuedAtIsRejected() {
        Instant future = clock.instant().plus(Duration.ofHours(1));
        String token = WorkerTokenForge.sign(
                acmeKey(),
                "k1",
                WorkerTokenForge.validClaims("acme", "dev", CONVERSATION, "alice", future)
                        .notBeforeTime(null)
                        .build());
        assertRejected(token, RejectionReason.ISSUED_IN_FUTURE);
    }

    @Test
    void lifetimeLongerThanWeMintIsRejected() {
        String token = WorkerTokenForge.sign(
                acmeKey(),
                "k1",
                claims().expirationTime(Date.from(clock.instant().plus(Duration.ofDays(1))))
                        .build());
        assertRejected(token, RejectionReason.BAD_CLAIMS);
    }

    @Test
    void bogusTenantTokensDoNotGrowTheDerivedKeyCache() {
        byte[] key = acmeKey();
        long before = keys.cachedCount();
        for (int i = 0; i < 20_000; i++) {
            String token = WorkerTokenForge.sign(
                    key,
                    "k1",
                    WorkerTokenForge.validClaims("t" + i, "dev", CONVERSATION, "alice", clock.instant())
                            .build());
            assertRejected(token, RejectionReason.UNKNOWN_TENANT_ENVIRONMENT);
        }

        assertThat(keys.cachedCount()).isEqualTo(before);
    }

    @Test
    void unknownOrMissingKidIsRejected() {
        assertRejected(WorkerTokenForge.sign(acmeKey(), "k9", claims().build()), RejectionReason.UNKNOWN_KID);
        assertRejected(WorkerTokenForge.sign(acmeKey(), h -> h, claims().build()), RejectionReason.UNKNOWN_KID);
    }

    @Test
    void oldKidStillVerifiesAfterRotationAndStopsWhenRemoved() throws Exception {
        String signedWithK1 = issuer.issue(scope()).token();
        TokenProperties rotated = TokenTestSupport.properties(properties.keys().masterKeys(), "k2");
        DerivedKeys rotatedKeys = TestKeys.derivedKeys(rotated);
        WorkerTokenVerifier afterRotation = new WorkerTokenVerifier(rotatedKeys, KNOWN::contains, rotated, clock);

        assertThat(afterRotation.verify(signedWithK1).conversationId()).isEqualTo(CONVERSATION);
        assertThat(SignedJWT.parse(new WorkerTokenIssuer(rotatedKeys, rotated, clock)
                                .issue(scope())
                                .token())
                        .getHeader()
                        .getKeyID())
                .isEqualTo("k2");

        TokenProperties k1Removed = TokenTestSupport.properties(
                List.of(properties.keys().masterKeys().get(1)), "k2");
        WorkerTokenVerifier afterRemoval =
                new WorkerTokenVerifier(TestKeys.derivedKeys(k1Removed), KNOWN::contains, k1Removed, clock);
        assertThatThrownBy(() -> afterRemoval.verify(signedWithK1))
                .isInstanceOfSatisfying(
                        WorkerTokenRejected.class, e -> assertThat(e.reason()).isEqualTo(RejectionReason.UNKNOWN_KID));
    }

    @Test
    void tokenClaimingAnotherTenantEnvironmentFailsItsSignature() {
        // Signed with ACME's key but claiming GLOBEX: the claimed scope selects GLOBEX's key, which does not match.
        String token = WorkerTokenForge.sign(
                acmeKey(),
                "k1",
                WorkerTokenForge.validClaims("globex", "dev", CONVERSATION, "alice", clock.instant())
                        .build());
        assertRejected(token, RejectionReason.BAD_SIGNATURE);
    }

    @Test
    void subjectMustMatchTenantEnvironment() {
        String token = WorkerTokenForge.sign(
                acmeKey(), "k1", claims().subject("worker:globex/dev").build());
        assertRejected(token, RejectionReason.BAD_CLAIMS);
    }

    @Test
    void wrongAudienceAndIssuerAreRejected() {
        assertRejected(
                WorkerTokenForge.sign(
                        acmeKey(), "k1", claims().audience("talkide-worker").build()),
                RejectionReason.WRONG_AUDIENCE);
        assertRejected(
                WorkerTokenForge.sign(
                        acmeKey(), "k1", claims().issuer("someone-else").build()),
                RejectionReason.WRONG_ISSUER);
    }

    @Test
    void missingOrMistypedClaimsAreRejected() {
        assertRejected(
                WorkerTokenForge.sign(
                        acmeKey(), "k1", claims().claim("cid", "not-a-uuid").build()),
                RejectionReason.BAD_CLAIMS);
        assertRejected(
                WorkerTokenForge.sign(acmeKey(), "k1", claims().claim("uid", 42).build()), RejectionReason.BAD_CLAIMS);
        assertRejected(
                WorkerTokenForge.sign(
                        acmeKey(), "k1", claims().claim("tid", null).build()),
                RejectionReason.BAD_CLAIMS);
        assertRejected(
                WorkerTokenForge.sign(
                        acmeKey(), "k1", claims().claim("tid", "UPPER").build()),
                RejectionReason.BAD_CLAIMS);
        assertRejected(
                WorkerTokenForge.sign(
                        acmeKey(), "k1", claims().expirationTime(null).build()),
                RejectionReason.BAD_CLAIMS);
        assertRejected(
                WorkerTokenForge.sign(acmeKey(), "k1", claims().jwtID(null).build()), RejectionReason.BAD_CLAIMS);
    }

    @Test
    void malformedTokensAreRejected() {
        assertRejected("not-a-token", RejectionReason.MALFORMED);
        assertRejected("a.b.c", RejectionReason.MALFORMED);
        assertRejected("%%%.@@@.***", RejectionReason.MALFORMED);
        String header = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("{\"alg\":\"HS256\",\"kid\":\"k1\",\"typ\":\"wt+jwt\"}".getBytes());
        String notJson = Base64.getUrlEncoder().withoutPadding().encodeToString("{not json".getBytes());
        assertRejected(header + "." + notJson + ".c2ln", RejectionReason.MALFORMED);
    }

    @Test
    void nonCanonicalEncodingsOfAValidTokenAreRejected() {
        String token = issuer.issue(scope()).token();
        int signatureStart = token.lastIndexOf('.') + 1;
        assertRejected(token + "=", RejectionReason.MALFORMED);
        assertRejected(
                token.substring(0, signatureStart) + "=" + token.substring(signatureStart), RejectionReason.MALFORMED);
        assertRejected(token.replace('.', '\u002e') + " ", RejectionReason.MALFORMED);
        // 43 base64url characters carry 258 bits for a 256-bit MAC: flipping the 2 spare bits keeps the bytes.
        char last = token.charAt(token.length() - 1);
        String base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char spareBitsFlipped = base64.charAt(base64.indexOf(last) ^ 1);
        assertRejected(token.substring(0, token.length() - 1) + spareBitsFlipped, RejectionReason.MALFORMED);
    }

    @Test
    void missingAndOversizedHeadersAreRejected() {
        assertRejected(null, RejectionReason.MISSING);
        assertRejected("  ", RejectionReason.MISSING);
        assertRejected("x".repeat(4097), RejectionReason.OVERSIZED);
        assertRejected("x".repeat(4096), RejectionReason.MALFORMED); // at the limit: read, and found wanting
    }

    private ConversationScope scope() {
        return new ConversationScope(CONVERSATION, ACME, "alice");
    }

    private JWTClaimsSet.Builder claims() {
        return WorkerTokenForge.validClaims("acme", "dev", CONVERSATION, "alice", clock.instant());
    }

    private byte[] acmeKey() {
        return keys.signing(KeyPurpose.WORKER_TOKEN, ACME).secret();
    }

    private boolean verifies(String token) {
        try {
            verifier.verify(token);
            return true;
        } catch (WorkerTokenRejected e) {
            return false;
        }
    }

    private void assertRejected(String token, RejectionReason reason) {
        assertThatThrownBy(() -> verifier.verify(token))
                .isInstanceOfSatisfying(
                        WorkerTokenRejected.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }
}
