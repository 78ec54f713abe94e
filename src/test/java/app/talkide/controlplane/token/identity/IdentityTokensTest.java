package app.talkide.controlplane.token.identity;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.ApplicationOnTestClockTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.MutableClock;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.TokenProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

@DatabaseTest
@ApplicationOnTestClockTest
class IdentityTokensTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    IdentityTokens identityTokens;

    @Autowired
    IdentityTokenRepository repository;

    @Autowired
    TokenProperties properties;

    @Autowired
    MutableClock clock;

    @Autowired
    JdbcClient jdbc;

    TenantEnvironmentId acme;

    @BeforeEach
    void setUp() {
        acme = Fixtures.tenantEnvironment(context);
    }

    @Test
    void issuedTokenIsOpaquePrefixedAndStoredOnlyAsItsHash() {
        IssuedIdentityToken issued = identityTokens.issue(acme);

        assertThat(issued.token()).matches("tkwi_[A-Za-z0-9_-]{43}");
        assertThat(identityTokens.verify(issued.token())).contains(new VerifiedIdentity(issued.id(), acme));
        List<String> stored = jdbc.sql("select token_hash from worker_identity_token where id = :id")
                .param("id", issued.id())
                .query(String.class)
                .list();
        assertThat(stored)
                .containsExactly(IdentityTokenValue.hash(issued.token()))
                .doesNotContain(issued.token());
        assertThat(issued.expiresAt()).isEqualTo(clock.instant().plus(Duration.ofDays(90)));
        assertThat(issued.toString()).doesNotContain(issued.token());
    }

    @Test
    void unknownAndMisshapenTokensDoNotVerify() {
        assertThat(identityTokens.verify("tkwi_" + "A".repeat(43))).isEmpty();
        assertThat(identityTokens.verify("nope")).isEmpty();
        assertThat(identityTokens.verify(null)).isEmpty();
        assertThat(identityTokens.verify("tkwi_" + "A".repeat(42) + "!")).isEmpty();
    }

    @Test
    void expiredTokenDoesNotVerify() {
        IssuedIdentityToken issued = identityTokens.issue(acme);
        clock.advance(Duration.ofDays(90).minusSeconds(1));
        assertThat(identityTokens.verify(issued.token())).isPresent();
        clock.advance(Duration.ofSeconds(1));
        assertThat(identityTokens.verify(issued.token())).isEmpty();
    }

    @Test
    void revocationTakesEffectAtOnceOnThisReplica() {
        IssuedIdentityToken issued = identityTokens.issue(acme);
        assertThat(identityTokens.verify(issued.token())).isPresent(); // now cached

        assertThat(identityTokens.revoke(issued.id())).isTrue();

        assertThat(identityTokens.verify(issued.token())).isEmpty();
    }

    @Test
    void revocationOnAnotherReplicaTakesEffectWithinTheCacheTtl() {
        IdentityTokens otherReplica = new IdentityTokens(repository, properties, clock);
        IssuedIdentityToken issued = identityTokens.issue(acme);
        assertThat(identityTokens.verify(issued.token())).isPresent(); // cached on "this" replica

        otherReplica.revoke(issued.id());

        // The cache TTL (5 s) bounds the delay; every real replica re-reads after it.
        assertThat(new IdentityTokens(repository, properties, clock).verify(issued.token()))
                .isEmpty();
        org.awaitility.Awaitility.await()
                .atMost(properties.identityCacheTtl().plusSeconds(5))
                .until(() -> identityTokens.verify(issued.token()).isEmpty());
    }

    @Test
    void rotationKeepsOldTokenValidForTheGracePeriodThenRevokesIt() {
        IssuedIdentityToken old = identityTokens.issue(acme);
        assertThat(identityTokens.verify(old.token())).isPresent();

        IdentityTokens.Rotation rotation = identityTokens.rotate(acme);

        assertThat(rotation.graceEndsAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(15)));
        assertThat(identityTokens.verify(old.token())).isPresent();
        assertThat(identityTokens.verify(rotation.token().token())).isPresent();
        clock.advance(Duration.ofMinutes(15).minusSeconds(1));
        assertThat(identityTokens.verify(old.token())).isPresent();
        clock.advance(Duration.ofSeconds(1));
        assertThat(identityTokens.verify(old.token())).isEmpty();
        assertThat(identityTokens.verify(rotation.token().token())).isPresent();
    }

    @Test
    void rotatingTwiceDoesNotExtendAnAlreadyShorterGrace() {
        IssuedIdentityToken first = identityTokens.issue(acme);
        identityTokens.rotate(acme);
        clock.advance(Duration.ofMinutes(10));
        identityTokens.rotate(acme);
        clock.advance(Duration.ofMinutes(5));
        assertThat(identityTokens.verify(first.token())).isEmpty();
    }

    @Test
    void retiringTokensIssuedBeforeOneLeavesLaterTokensAndOtherTenantEnvironmentsAlone() {
        TenantEnvironmentId other = Fixtures.tenantEnvironment(context);
        IssuedIdentityToken older = identityTokens.issue(acme);
        IssuedIdentityToken foreign = identityTokens.issue(other);
        clock.advance(Duration.ofSeconds(1));
        IssuedIdentityToken current = identityTokens.issue(acme);
        clock.advance(Duration.ofSeconds(1));
        IssuedIdentityToken later = identityTokens.issue(acme);

        java.time.Instant graceEndsAt = identityTokens.retireIssuedBefore(acme, current.id());

        assertThat(graceEndsAt).isEqualTo(clock.instant().plus(Duration.ofMinutes(15)));
        clock.advance(Duration.ofMinutes(15));
        assertThat(identityTokens.verify(older.token())).isEmpty();
        assertThat(identityTokens.verify(current.token())).isPresent();
        assertThat(identityTokens.verify(later.token())).isPresent();
        assertThat(identityTokens.verify(foreign.token())).isPresent();
    }

    @Test
    void revokeAllRevokesEveryTokenOfTheTenantEnvironmentOnly() {
        TenantEnvironmentId other = Fixtures.tenantEnvironment(context);
        IssuedIdentityToken a1 = identityTokens.issue(acme);
        IssuedIdentityToken a2 = identityTokens.rotate(acme).token();
        IssuedIdentityToken b = identityTokens.issue(other);

        identityTokens.revokeAll(acme);

        assertThat(identityTokens.verify(a1.token())).isEmpty();
        assertThat(identityTokens.verify(a2.token())).isEmpty();
        assertThat(identityTokens.verify(b.token())).isPresent();
    }

    @Test
    void tokensPastEightyPercentOfTheirLifetimeAreDueForRotation() {
        IssuedIdentityToken issued = identityTokens.issue(acme);
        clock.advance(Duration.ofDays(72).minusMinutes(1));
        assertThat(identityTokens.dueForRotation(0.8))
                .extracting(IdentityTokenRecord::id)
                .doesNotContain(issued.id());
        clock.advance(Duration.ofMinutes(1));
        assertThat(identityTokens.dueForRotation(0.8))
                .extracting(IdentityTokenRecord::id)
                .contains(issued.id());
        identityTokens.rotate(acme);
        assertThat(identityTokens.dueForRotation(0.8))
                .extracting(IdentityTokenRecord::id)
                .doesNotContain(issued.id());
    }

    @Test
    void concurrentIssuesAndVerificationsAllSucceed() throws Exception {
        var executor = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<IssuedIdentityToken>> issued = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            issued.add(executor.submit(() -> identityTokens.issue(acme)));
        }
        var ids = ConcurrentHashMap.newKeySet();
        for (Future<IssuedIdentityToken> future : issued) {
            IssuedIdentityToken token = future.get(30, TimeUnit.SECONDS);
            assertThat(identityTokens.verify(token.token())).isPresent();
            ids.add(token.id());
        }
        executor.close();
        assertThat(ids).hasSize(50);
    }
}
