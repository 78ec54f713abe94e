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
import app.talkide.controlplane.token.keys.TestKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class VerifiedWorkerTokensTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "dev");

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final TokenProperties properties = TokenTestSupport.properties();
    final DerivedKeys keys = TestKeys.derivedKeys(properties);
    final Set<TenantEnvironmentId> known = ConcurrentHashMap.newKeySet();
    final WorkerTokenIssuer issuer = new WorkerTokenIssuer(keys, properties, clock);
    final CountingVerifier verifier = new CountingVerifier();
    final VerifiedWorkerTokens tokens = new VerifiedWorkerTokens(verifier, known::contains, clock);

    {
        known.add(ACME);
    }

    /** The real verifier, counting the full checks (parsing and signature) it makes. */
    final class CountingVerifier extends WorkerTokenVerifier {
        final AtomicInteger fullChecks = new AtomicInteger();

        CountingVerifier() {
            super(keys, tenantEnvironment -> known.contains(tenantEnvironment), properties, clock);
        }

        @Override
        public WorkerPrincipal verify(@Nullable String token) throws WorkerTokenRejected {
            fullChecks.incrementAndGet();
            return super.verify(token);
        }
    }

    @Test
    void repeatedTokenIsCheckedInFullOnlyOnce() throws Exception {
        String token = issue("alice");

        WorkerPrincipal first = tokens.verify(token);
        WorkerPrincipal again = tokens.verify(token);

        assertThat(again).isEqualTo(first);
        assertThat(verifier.fullChecks).hasValue(1);
    }

    @Test
    void rememberedTokenIsNeverTrustedPastItsExpiry() throws Exception {
        String token = issue("alice");
        tokens.verify(token);

        clock.advance(Duration.ofSeconds(120));
        // At its exp the full check runs again (and still accepts within the clock skew, as it always did).
        tokens.verify(token);
        assertThat(verifier.fullChecks).hasValue(2);

        clock.advance(properties.clockSkew());
        assertRejected(token, RejectionReason.EXPIRED);
    }

    @Test
    void rememberedTokenOfATenantEnvironmentThatIsGoneIsRefusedForThatReason() throws Exception {
        String token = issue("alice");
        tokens.verify(token);

        known.remove(ACME);

        assertRejected(token, RejectionReason.UNKNOWN_TENANT_ENVIRONMENT);
    }

    @Test
    void tokenThatDiffersFromARememberedOneIsCheckedInFull() throws Exception {
        String token = issue("alice");
        tokens.verify(token);
        String[] parts = token.split("\\.");
        char flipped = parts[2].charAt(10) == 'A' ? 'B' : 'A';
        String forged = parts[0] + "." + parts[1] + "." + parts[2].substring(0, 10) + flipped + parts[2].substring(11);

        assertRejected(forged, RejectionReason.BAD_SIGNATURE);
        assertThat(verifier.fullChecks).hasValue(2);
    }

    @Test
    void refusedTokensAreNeverRemembered() throws Exception {
        String valid = issue("alice");
        String[] parts = valid.split("\\.");
        for (int i = 0; i < 1_000; i++) {
            String garbage = i % 2 == 0 ? "not-a-token-" + i : parts[0] + "." + parts[1] + ".forged" + i;
            assertThatThrownBy(() -> tokens.verify(garbage)).isInstanceOf(WorkerTokenRejected.class);
        }
        clock.advance(Duration.ofSeconds(200));
        assertThatThrownBy(() -> tokens.verify(valid)).isInstanceOf(WorkerTokenRejected.class);

        assertThat(tokens.size()).isZero();
    }

    @Test
    void rememberedTokensAreBounded() throws Exception {
        for (int i = 0; i < VerifiedWorkerTokens.MAX_ENTRIES + 500; i++) {
            tokens.verify(issue("user-" + i));
        }

        assertThat(tokens.size()).isBetween(1L, (long) VerifiedWorkerTokens.MAX_ENTRIES);
    }

    private String issue(String user) {
        return issuer.issue(new ConversationScope(UUID.randomUUID(), ACME, user))
                .token();
    }

    private void assertRejected(String token, RejectionReason reason) {
        assertThatThrownBy(() -> tokens.verify(token))
                .isInstanceOfSatisfying(
                        WorkerTokenRejected.class,
                        rejected -> assertThat(rejected.reason()).isEqualTo(reason));
    }
}
