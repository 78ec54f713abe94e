package app.talkide.controlplane.token.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link IdentityTokens} over a stand-in repository: what the cache remembers, when a change on this
 * replica clears it, and the time edges of validity and rotation. IdentityTokensTest runs it on a database.
 */
class IdentityTokensCacheTest {

    static final TenantEnvironmentId SCOPE = TenantEnvironmentId.of("acme", "prod");
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    final IdentityTokenRepository repository = mock(IdentityTokenRepository.class);
    final MutableClock clock = new MutableClock(START);
    final IdentityTokens tokens = new IdentityTokens(repository, TokenTestSupport.properties(), clock);

    @Test
    void anIssuedTokenIsStoredByItsHashAndVerifiesUntilTheInstantItExpires() {
        IssuedIdentityToken issued = tokens.issue(SCOPE);
        assertThat(issued.expiresAt()).isEqualTo(START.plus(Duration.ofDays(90)));
        assertThat(issued.toString()).doesNotContain(issued.token()).contains("token=<redacted>");
        verify(repository).insert(any(), eq(IdentityTokenValue.hash(issued.token())));
        record(issued.id(), issued.token(), issued.expiresAt(), null);

        clock.set(issued.expiresAt().minusMillis(1));
        assertThat(tokens.verify(issued.token())).contains(new VerifiedIdentity(issued.id(), SCOPE));
        clock.set(issued.expiresAt());
        assertThat(tokens.verify(issued.token())).isEmpty();
    }

    @Test
    void garbageCostsNoLookUp() {
        assertThat(tokens.verify(null)).isEmpty();
        assertThat(tokens.verify("tkwi_short")).isEmpty();
        assertThat(tokens.verify("xxxx_" + "a".repeat(43))).isEmpty();
        verify(repository, times(0)).findByHash(anyString());
    }

    @Test
    void answersAreCachedUntilAChangeOnThisReplicaClearsThem() {
        String value = IdentityTokenValue.generate();
        UUID id = UUID.randomUUID();
        IdentityTokenRecord live = record(id, value, START.plusSeconds(60), null);
        when(repository.find(id)).thenReturn(Optional.of(live));

        assertThat(tokens.verify(value)).isPresent();
        assertThat(tokens.verify(value)).isPresent();
        verify(repository, times(1)).findByHash(anyString());

        assertThat(tokens.revoke(id)).isTrue();
        verify(repository).revoke(id, START);
        assertThat(tokens.verify(value)).isPresent();
        verify(repository, times(2)).findByHash(anyString());

        tokens.revokeAll(SCOPE);
        verify(repository).revoke(id, START);
        tokens.verify(value);
        verify(repository, times(3)).findByHash(anyString());

        tokens.rotate(SCOPE);
        tokens.verify(value);
        verify(repository, times(4)).findByHash(anyString());

        tokens.retireIssuedBefore(SCOPE, id);
        tokens.verify(value);
        verify(repository, times(5)).findByHash(anyString());
    }

    @Test
    void revokingAnUnknownIdSaysSo() {
        assertThat(tokens.revoke(UUID.randomUUID())).isFalse();
    }

    @Test
    void revokeAllRevokesEachTokenOfTheTenantEnvironment() {
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        when(repository.findByTenantEnvironment(SCOPE))
                .thenReturn(List.of(
                        new IdentityTokenRecord(first, SCOPE, START, START.plusSeconds(9), null),
                        new IdentityTokenRecord(second, SCOPE, START, START.plusSeconds(9), null)));

        tokens.revokeAll(SCOPE);

        verify(repository).revoke(first, START);
        verify(repository).revoke(second, START);
        assertThat(tokens.list(SCOPE)).hasSize(2);
    }

    @Test
    void aRotationKeepsTheOthersForTheGracePeriod() {
        IdentityTokens.Rotation rotation = tokens.rotate(SCOPE);

        assertThat(rotation.graceEndsAt()).isEqualTo(START.plus(Duration.ofMinutes(15)));
        verify(repository).revokeOthers(SCOPE, rotation.token().id(), rotation.graceEndsAt());
    }

    @Test
    void retiringKeepsTokensIssuedBeforeTheCurrentOneForTheGracePeriod() {
        UUID current = UUID.randomUUID();
        Instant created = START.minusSeconds(30);
        when(repository.find(current))
                .thenReturn(Optional.of(new IdentityTokenRecord(current, SCOPE, created, START.plusSeconds(60), null)));

        Instant ends = tokens.retireIssuedBefore(SCOPE, current);

        assertThat(ends).isEqualTo(START.plus(Duration.ofMinutes(15)));
        verify(repository).revokeIssuedBefore(SCOPE, current, created, ends);
    }

    @Test
    void aTokenIsDueForRotationFromTheExactShareOfItsLifetime() {
        IdentityTokenRecord token =
                new IdentityTokenRecord(UUID.randomUUID(), SCOPE, START, START.plusSeconds(100), null);
        when(repository.findLiveUnrevoked(any())).thenReturn(List.of(token));

        clock.set(START.plusMillis(79_999));
        assertThat(tokens.dueForRotation(0.8)).isEmpty();
        clock.set(START.plusSeconds(80));
        assertThat(tokens.dueForRotation(0.8)).containsExactly(token);
    }

    private IdentityTokenRecord record(UUID id, String value, Instant expiresAt, Instant revokedAt) {
        IdentityTokenRecord record = new IdentityTokenRecord(id, SCOPE, START, expiresAt, revokedAt);
        when(repository.findByHash(IdentityTokenValue.hash(value))).thenReturn(Optional.of(record));
        return record;
    }
}
