package app.talkide.controlplane.token.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentBeingDeleted;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;

/** The admin API's decisions: no new token for a tenant-environment being deleted, only its own tokens revoked. */
class IdentityTokenAdminControllerTest {

    static final TenantEnvironmentId SCOPE = TenantEnvironmentId.of("acme", "prod");
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    final IdentityTokens tokens = mock(IdentityTokens.class);
    final TenantEnvironments tenantEnvironments = mock(TenantEnvironments.class);

    @SuppressWarnings("unchecked")
    final ObjectProvider<IdentityTokenRotator> rotators = mock(ObjectProvider.class);

    final IdentityTokenAdminController controller =
            new IdentityTokenAdminController(tokens, tenantEnvironments, rotators);

    @ParameterizedTest
    @EnumSource(
            value = TenantEnvironmentStatus.class,
            names = {"DELETING", "DELETED"})
    void aTenantEnvironmentBeingDeletedGetsNoNewToken(TenantEnvironmentStatus status) {
        status(status);

        assertThatThrownBy(() -> controller.issue("acme", "prod")).isInstanceOf(TenantEnvironmentBeingDeleted.class);
        assertThatThrownBy(() -> controller.rotate("acme", "prod")).isInstanceOf(TenantEnvironmentBeingDeleted.class);
        verify(tokens, never()).issue(SCOPE);
    }

    @Test
    void aLiveTenantEnvironmentGetsItsTokenCreated() {
        status(TenantEnvironmentStatus.READY);
        IssuedIdentityToken issued = new IssuedIdentityToken(UUID.randomUUID(), SCOPE, "tkwi_x", NOW);
        when(tokens.issue(SCOPE)).thenReturn(issued);

        var response = controller.issue("acme", "prod");

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(response.getBody()).isEqualTo(issued);
    }

    @Test
    void rotationGoesThroughTheRotatorWhenThereIsOne() {
        status(TenantEnvironmentStatus.READY);
        IdentityTokens.Rotation viaRotator =
                new IdentityTokens.Rotation(new IssuedIdentityToken(UUID.randomUUID(), SCOPE, "tkwi_r", NOW), NOW);
        IdentityTokens.Rotation inDatabase =
                new IdentityTokens.Rotation(new IssuedIdentityToken(UUID.randomUUID(), SCOPE, "tkwi_d", NOW), NOW);
        when(tokens.rotate(SCOPE)).thenReturn(inDatabase);

        assertThat(controller.rotate("acme", "prod")).isEqualTo(inDatabase);

        IdentityTokenRotator rotator = id -> viaRotator;
        when(rotators.getIfUnique()).thenReturn(rotator);
        assertThat(controller.rotate("acme", "prod")).isEqualTo(viaRotator);
    }

    @Test
    void onlyATokenOfThisTenantEnvironmentIsRevoked() {
        status(TenantEnvironmentStatus.READY);
        UUID ours = UUID.randomUUID();
        IdentityTokenRecord record = new IdentityTokenRecord(ours, SCOPE, NOW, NOW.plusSeconds(9), null);
        when(tokens.list(SCOPE)).thenReturn(List.of(record));

        assertThat(controller.list("acme", "prod")).containsExactly(record);
        UUID theirs = UUID.randomUUID();
        assertThatThrownBy(() -> controller.revoke("acme", "prod", theirs)).isInstanceOf(IdentityTokenNotFound.class);
        verify(tokens, never()).revoke(theirs);

        assertThat(controller.revoke("acme", "prod", ours).getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
        verify(tokens).revoke(ours);
    }

    private void status(TenantEnvironmentStatus status) {
        when(tenantEnvironments.get(SCOPE)).thenReturn(new TenantEnvironment(SCOPE, status, null, NOW, NOW));
    }
}
