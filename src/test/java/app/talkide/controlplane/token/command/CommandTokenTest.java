package app.talkide.controlplane.token.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import app.talkide.controlplane.token.TokenTestSupport;
import app.talkide.controlplane.token.keys.DerivedKeys;
import app.talkide.controlplane.token.keys.TestKeys;
import app.talkide.controlplane.workercontract.CommandKeySet;
import app.talkide.controlplane.workercontract.CommandRejection;
import app.talkide.controlplane.workercontract.CommandTokenRejected;
import app.talkide.controlplane.workercontract.CommandTokenVerifier;
import app.talkide.controlplane.workercontract.ReplayCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CommandTokenTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");
    static final byte[] BODY = "{\"messageId\":\"m1\",\"text\":\"hello\"}".getBytes(StandardCharsets.UTF_8);

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final TokenProperties properties = TokenTestSupport.properties();
    final DerivedKeys keys = TestKeys.derivedKeys(properties);
    final CommandTokenSigner signer = new CommandTokenSigner(keys, properties, clock);
    final CommandKeySet workerKeys = new CommandKeys(keys).forWorker(ACME);
    final CommandTokenVerifier worker = new CommandTokenVerifier(
            CommandKeySet.parse(workerKeys.format()), ACME, clock, Duration.ofSeconds(30), new ReplayCache());

    @Test
    void signedCommandVerifiesOnceAtTheWorker() {
        String token = signer.sign(ACME, "POST", "/sessions/c1/messages", BODY);

        assertThatCode(() -> worker.verify(token, "POST", "/sessions/c1/messages", BODY))
                .doesNotThrowAnyException();
        assertRejected(() -> worker.verify(token, "POST", "/sessions/c1/messages", BODY), CommandRejection.REPLAYED);
    }

    @Test
    void bodyChangedAfterSigningIsRejected() {
        String token = signer.sign(ACME, "POST", "/sessions/c1/messages", BODY);
        byte[] changed = "{\"messageId\":\"m1\",\"text\":\"rm -rf\"}".getBytes(StandardCharsets.UTF_8);
        assertRejected(
                () -> worker.verify(token, "POST", "/sessions/c1/messages", changed), CommandRejection.BODY_MISMATCH);
    }

    @Test
    void pathChangedAfterSigningIsRejected() {
        String token = signer.sign(ACME, "POST", "/sessions/c1/messages", BODY);
        assertRejected(
                () -> worker.verify(token, "POST", "/sessions/c2/messages", BODY), CommandRejection.PATH_MISMATCH);
        String withQuery = signer.sign(ACME, "GET", "/sessions/c1/stream", new byte[0]);
        assertRejected(
                () -> worker.verify(withQuery, "GET", "/sessions/c1/stream?x=1", new byte[0]),
                CommandRejection.PATH_MISMATCH);
    }

    @Test
    void methodChangedAfterSigningIsRejected() {
        String token = signer.sign(ACME, "POST", "/sessions/c1/interrupt", new byte[0]);
        assertRejected(
                () -> worker.verify(token, "DELETE", "/sessions/c1/interrupt", new byte[0]),
                CommandRejection.METHOD_MISMATCH);
    }

    @Test
    void commandForAnotherTenantEnvironmentIsRejected() {
        TenantEnvironmentId globex = TenantEnvironmentId.of("globex", "dev");
        // Signed with globex's command key: acme's worker does not hold it.
        String forGlobex = signer.sign(globex, "DELETE", "/sessions/c1", new byte[0]);
        assertRejected(
                () -> worker.verify(forGlobex, "DELETE", "/sessions/c1", new byte[0]), CommandRejection.BAD_SIGNATURE);
        // A worker given the wrong keys is still bound to its own tenant-environment claim.
        CommandTokenVerifier confused = new CommandTokenVerifier(
                new CommandKeys(keys).forWorker(globex), ACME, clock, Duration.ofSeconds(30), new ReplayCache());
        assertRejected(
                () -> confused.verify(forGlobex, "DELETE", "/sessions/c1", new byte[0]),
                CommandRejection.WRONG_TENANT_ENVIRONMENT);
    }

    @Test
    void expiredCommandIsRejected() {
        String token = signer.sign(ACME, "POST", "/sessions", BODY);
        clock.advance(Duration.ofSeconds(60 + 31));
        assertRejected(() -> worker.verify(token, "POST", "/sessions", BODY), CommandRejection.EXPIRED);
    }

    @Test
    void commandSignedInTheFutureIsRejected() {
        MutableClock ahead = new MutableClock(clock.instant().plus(Duration.ofMinutes(5)));
        String token = new CommandTokenSigner(keys, properties, ahead).sign(ACME, "POST", "/sessions", BODY);
        assertRejected(() -> worker.verify(token, "POST", "/sessions", BODY), CommandRejection.ISSUED_IN_FUTURE);
    }

    @Test
    void workerKeepsVerifyingThroughMasterKeyRotation() {
        TokenProperties rotated = TokenTestSupport.properties(properties.keys().masterKeys(), "k2");
        String signedWithK2 = new CommandTokenSigner(TestKeys.derivedKeys(rotated), rotated, clock)
                .sign(ACME, "POST", "/sessions", BODY);
        assertThatCode(() -> worker.verify(signedWithK2, "POST", "/sessions", BODY))
                .doesNotThrowAnyException();
    }

    @Test
    void unknownKidIsRejected() {
        CommandTokenVerifier onlyK1 = new CommandTokenVerifier(
                CommandKeySet.parse(workerKeys.format().split(",")[0]),
                ACME,
                clock,
                Duration.ofSeconds(30),
                new ReplayCache());
        TokenProperties rotated = TokenTestSupport.properties(properties.keys().masterKeys(), "k2");
        String signedWithK2 = new CommandTokenSigner(TestKeys.derivedKeys(rotated), rotated, clock)
                .sign(ACME, "POST", "/sessions", BODY);
        assertRejected(() -> onlyK1.verify(signedWithK2, "POST", "/sessions", BODY), CommandRejection.UNKNOWN_KID);
    }

    @Test
    void workerTokenIsNotACommand() {
        String workerToken = new app.talkide.controlplane.token.worker.WorkerTokenIssuer(keys, properties, clock)
                .issue(new app.talkide.controlplane.conversation.ConversationScope(
                        java.util.UUID.randomUUID(), ACME, "alice"))
                .token();
        assertRejected(() -> worker.verify(workerToken, "POST", "/sessions", BODY), CommandRejection.WRONG_TYPE);
    }

    @Test
    void missingMalformedAndOversizedAreRejected() {
        assertRejected(() -> worker.verify(null, "POST", "/sessions", BODY), CommandRejection.MISSING);
        assertRejected(() -> worker.verify("garbage", "POST", "/sessions", BODY), CommandRejection.MALFORMED);
        assertRejected(() -> worker.verify("x".repeat(5000), "POST", "/sessions", BODY), CommandRejection.OVERSIZED);
    }

    @Test
    void replayCacheForgetsOnlyExpiredIds() {
        ReplayCache cache = new ReplayCache();
        Instant now = clock.instant();
        assertThat(cache.firstUse("a", now.plusSeconds(90), now)).isTrue();
        for (int i = 0; i < 2048; i++) {
            cache.firstUse("x" + i, now.minusSeconds(1), now);
        }
        assertThat(cache.firstUse("a", now.plusSeconds(90), now)).isFalse();
        assertThat(cache.size()).isLessThan(1100);
    }

    @Test
    void keySetRoundTripsThroughItsSecretFormAndHidesKeys() {
        CommandKeySet parsed = CommandKeySet.parse(workerKeys.format());
        assertThat(parsed.format()).isEqualTo(workerKeys.format()).startsWith("k1:");
        assertThat(parsed.toString())
                .doesNotContain(workerKeys.format().split(":")[1].substring(0, 10));
    }

    private static void assertRejected(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, CommandRejection reason) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        CommandTokenRejected.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }
}
