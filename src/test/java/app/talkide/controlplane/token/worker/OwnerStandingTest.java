package app.talkide.controlplane.token.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoMoreInteractions;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.conversation.ConversationScope;
import app.talkide.controlplane.membership.MembershipRevoked;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentClosed;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link OwnerStanding} and {@link StandingChanges} without a database: which answers are remembered,
 * and which change (local or heard from another replica) forgets what. OwnerStandingAcrossReplicasTest
 * runs them on PostgreSQL.
 */
class OwnerStandingTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "prod");
    static final TenantEnvironmentId OTHER = TenantEnvironmentId.of("other", "prod");
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    final Memberships memberships = mock(Memberships.class);
    final TenantEnvironments tenantEnvironments = mock(TenantEnvironments.class);
    final OwnerStanding standing = new OwnerStanding(memberships, tenantEnvironments);
    final StandingChanges changes = new StandingChanges(standing, mock(JdbcTemplate.class));

    @Test
    void aYesIsRememberedANoIsNot() {
        status(ACME, TenantEnvironmentStatus.READY);
        when(memberships.isMember(ACME, "ann")).thenReturn(true);

        assertThat(standing.workerMayActFor(scope(ACME, "ann"))).isTrue();
        assertThat(standing.workerMayActFor(scope(ACME, "ann"))).isTrue();
        verify(memberships, times(1)).isMember(ACME, "ann");

        assertThat(standing.workerMayActFor(scope(ACME, "bob"))).isFalse();
        assertThat(standing.workerMayActFor(scope(ACME, "bob"))).isFalse();
        verify(memberships, times(2)).isMember(ACME, "bob");
    }

    @ParameterizedTest
    @EnumSource(
            value = TenantEnvironmentStatus.class,
            names = {"DELETING", "DELETED"})
    void aMemberOfATenantEnvironmentBeingDeletedIsNotInGoodStanding(TenantEnvironmentStatus status) {
        status(ACME, status);
        when(memberships.isMember(ACME, "ann")).thenReturn(true);

        assertThat(standing.workerMayActFor(scope(ACME, "ann"))).isFalse();
    }

    @Test
    void aMemberOfAnUnknownTenantEnvironmentIsNotInGoodStanding() {
        when(tenantEnvironments.find(ACME)).thenReturn(Optional.empty());
        when(memberships.isMember(ACME, "ann")).thenReturn(true);

        assertThat(standing.workerMayActFor(scope(ACME, "ann"))).isFalse();
    }

    @Test
    void aLocalRevocationForgetsThatMemberOnly() {
        remember(ACME, "ann", "bob");

        changes.forget(new MembershipRevoked(ACME, "ann"));
        askAgain(ACME, "ann", "bob");

        verify(memberships, times(2)).isMember(ACME, "ann");
        verify(memberships, times(1)).isMember(ACME, "bob");
    }

    @Test
    void aLocalClosingForgetsThatTenantEnvironmentOnly() {
        remember(ACME, "ann");
        remember(OTHER, "ann");

        changes.forget(new TenantEnvironmentClosed(ACME));
        askAgain(ACME, "ann");
        askAgain(OTHER, "ann");

        verify(memberships, times(2)).isMember(ACME, "ann");
        verify(memberships, times(1)).isMember(OTHER, "ann");
    }

    @Test
    void notificationsFromOtherReplicasForgetWhatTheyName() {
        remember(ACME, "ann", "bob");
        remember(OTHER, "ann");

        changes.heard("m\tacme\tprod\tann");
        changes.heard("t\tother\tprod");
        askAgain(ACME, "ann", "bob");
        askAgain(OTHER, "ann");

        verify(memberships, times(2)).isMember(ACME, "ann");
        verify(memberships, times(1)).isMember(ACME, "bob");
        verify(memberships, times(2)).isMember(OTHER, "ann");
    }

    @Test
    void garbledNotificationsForgetNothing() {
        remember(ACME, "ann");

        changes.heard(null);
        changes.heard("m\tacme\tprod");
        changes.heard("t\tacme\tprod\tann");
        changes.heard("x\tacme\tprod");
        changes.heard("y\tacme\tprod\tann");
        changes.heard("t\tNot A Name\tprod");
        askAgain(ACME, "ann");

        verify(memberships, times(1)).isMember(ACME, "ann");
    }

    @Test
    void aListenThatStartsOrBreaksForgetsEverything() {
        remember(ACME, "ann");
        changes.listening(false);
        askAgain(ACME, "ann");
        verify(memberships, times(2)).isMember(ACME, "ann");

        changes.lost();
        askAgain(ACME, "ann");
        verify(memberships, times(3)).isMember(ACME, "ann");
    }

    @Test
    void aForgetWhileTheDatabaseWasAskedDropsTheYesItGave() {
        status(ACME, TenantEnvironmentStatus.READY);
        when(memberships.isMember(ACME, "ann")).thenAnswer(call -> {
            standing.forgetAll(); // a revocation committed while this read ran
            return true;
        });

        assertThat(standing.workerMayActFor(scope(ACME, "ann"))).isTrue();
        assertThat(standing.workerMayActFor(scope(ACME, "ann"))).isTrue();

        verify(memberships, times(2)).isMember(ACME, "ann");
    }

    @Test
    void onPostgresTheChangesTransactionTellsTheOtherReplicas() {
        JdbcTemplate jdbc = mock(JdbcTemplate.class);
        when(jdbc.execute(any(ConnectionCallback.class))).thenReturn(new String[] {"PostgreSQL", "public"});
        StandingChanges postgres = new StandingChanges(standing, jdbc);

        postgres.notifyOthers(new MembershipRevoked(ACME, "ann"));
        postgres.notifyOthers(new TenantEnvironmentClosed(ACME));

        verify(jdbc).queryForList("select pg_notify(?, ?)", "talkide_standing_public", "m\tacme\tprod\tann");
        verify(jdbc).queryForList("select pg_notify(?, ?)", "talkide_standing_public", "t\tacme\tprod");
    }

    @Test
    void onH2NoNotificationIsSent() {
        JdbcTemplate jdbc = mock(JdbcTemplate.class);
        StandingChanges local = new StandingChanges(standing, jdbc);

        local.notifyOthers(new MembershipRevoked(ACME, "ann"));
        local.notifyOthers(new TenantEnvironmentClosed(ACME));

        verify(jdbc).execute(any(ConnectionCallback.class));
        verifyNoMoreInteractions(jdbc);
    }

    private void remember(TenantEnvironmentId tenantEnvironment, String... users) {
        status(tenantEnvironment, TenantEnvironmentStatus.READY);
        for (String user : users) {
            when(memberships.isMember(tenantEnvironment, user)).thenReturn(true);
            assertThat(standing.workerMayActFor(scope(tenantEnvironment, user))).isTrue();
        }
    }

    private void askAgain(TenantEnvironmentId tenantEnvironment, String... users) {
        for (String user : users) {
            assertThat(standing.workerMayActFor(scope(tenantEnvironment, user))).isTrue();
        }
    }

    private void status(TenantEnvironmentId id, TenantEnvironmentStatus status) {
        when(tenantEnvironments.find(id)).thenReturn(Optional.of(new TenantEnvironment(id, status, null, NOW, NOW)));
    }

    private static ConversationScope scope(TenantEnvironmentId tenantEnvironment, String user) {
        return new ConversationScope(UUID.randomUUID(), tenantEnvironment, user);
    }
}
