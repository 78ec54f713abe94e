package app.talkide.controlplane.token.mint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.identity.VerifiedIdentity;
import app.talkide.controlplane.token.worker.IssuedWorkerToken;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

/** The mint endpoint's decisions, each counted by outcome: rate, scope and owner standing, then the token. */
class MintControllerTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "prod");
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    final ConversationDirectory conversations = mock(ConversationDirectory.class);
    final WorkerTokenIssuer issuer = mock(WorkerTokenIssuer.class);
    final OwnerStanding standing = mock(OwnerStanding.class);
    final MintRateLimiter limiter = mock(MintRateLimiter.class);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final MutableClock clock = new MutableClock(NOW);
    final MintController controller = new MintController(conversations, issuer, standing, limiter, meters, clock);

    final VerifiedIdentity identity = new VerifiedIdentity(UUID.randomUUID(), ACME);
    final UUID conversation = UUID.randomUUID();
    final ConversationScope scope = new ConversationScope(conversation, ACME, "ann");

    @Test
    void aConversationOfTheCallersTenantEnvironmentWithItsOwnerInGoodStandingGetsAToken() {
        when(limiter.tryAcquire(identity.tokenId())).thenReturn(Optional.empty());
        when(conversations.scopeOf(conversation)).thenReturn(Optional.of(scope));
        when(standing.workerMayActFor(scope)).thenReturn(true);
        when(issuer.issue(scope)).thenReturn(new IssuedWorkerToken("jwt", NOW.plusSeconds(120)));

        MintResponse response = controller.mint(identity, new MintRequest(conversation.toString()));

        assertThat(response).isEqualTo(new MintResponse("jwt", NOW.plusSeconds(120), 120));
        assertThat(response.toString())
                .doesNotContain("jwt")
                .contains(NOW.plusSeconds(120).toString());
        assertThat(count("issued")).isEqualTo(1);
        assertThat(new IssuedWorkerToken("jwt", NOW).toString())
                .doesNotContain("jwt")
                .contains("token=<redacted>");
    }

    @Test
    void aTokenThatExpiredByTheTimeItIsReturnedSaysZeroSecondsLeft() {
        when(limiter.tryAcquire(identity.tokenId())).thenReturn(Optional.empty());
        when(conversations.scopeOf(conversation)).thenReturn(Optional.of(scope));
        when(standing.workerMayActFor(scope)).thenReturn(true);
        when(issuer.issue(scope)).thenReturn(new IssuedWorkerToken("jwt", NOW.minusSeconds(1)));

        assertThat(controller
                        .mint(identity, new MintRequest(conversation.toString()))
                        .expiresIn())
                .isZero();
    }

    @Test
    void aCallerOverItsRateIsToldWhenToRetryAndGetsNoToken() {
        when(limiter.tryAcquire(identity.tokenId())).thenReturn(Optional.of(Duration.ofMillis(1_001)));

        assertThatThrownBy(() -> controller.mint(identity, new MintRequest(conversation.toString())))
                .isInstanceOfSatisfying(
                        MintRateExceeded.class,
                        e -> assertThat(e.getHeaders().getFirst(HttpHeaders.RETRY_AFTER))
                                .isEqualTo("2"));
        assertThat(count("rate_limited")).isEqualTo(1);
        verify(issuer, never()).issue(any());
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        assertThat(retryAfter(Duration.ZERO)).isEqualTo("1");
        assertThat(retryAfter(Duration.ofMillis(1_000))).isEqualTo("1");
        assertThat(retryAfter(Duration.ofMillis(2_999))).isEqualTo("3");
        assertThat(retryAfter(Duration.ofSeconds(30))).isEqualTo("30");
    }

    @Test
    void anotherTenantEnvironmentsConversationAndAnOwnerOutOfStandingGetTheSameRefusal() {
        when(limiter.tryAcquire(identity.tokenId())).thenReturn(Optional.empty());
        UUID theirs = UUID.randomUUID();
        when(conversations.scopeOf(theirs))
                .thenReturn(Optional.of(new ConversationScope(theirs, TenantEnvironmentId.of("other", "prod"), "ann")));
        when(standing.workerMayActFor(any())).thenReturn(true);
        assertThatThrownBy(() -> controller.mint(identity, new MintRequest(theirs.toString())))
                .isInstanceOf(ConversationOutOfScope.class);

        when(conversations.scopeOf(conversation)).thenReturn(Optional.of(scope));
        when(standing.workerMayActFor(scope)).thenReturn(false);
        assertThatThrownBy(() -> controller.mint(identity, new MintRequest(conversation.toString())))
                .isInstanceOf(ConversationOutOfScope.class);

        assertThat(count("forbidden")).isEqualTo(2);
        verify(issuer, never()).issue(any());
    }

    private double count(String outcome) {
        return meters.counter("talkide.worker.token.mints", "outcome", outcome).count();
    }

    private static String retryAfter(Duration wait) {
        return new MintRateExceeded(wait).getHeaders().getFirst(HttpHeaders.RETRY_AFTER);
    }
}
