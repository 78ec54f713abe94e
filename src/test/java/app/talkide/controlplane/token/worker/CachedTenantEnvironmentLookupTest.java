package app.talkide.controlplane.token.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A deleted or unknown tenant-environment does not exist for tokens; every answer, misses too, is remembered. */
class CachedTenantEnvironmentLookupTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    final TenantEnvironments tenantEnvironments = mock(TenantEnvironments.class);
    final CachedTenantEnvironmentLookup lookup = new CachedTenantEnvironmentLookup(tenantEnvironments);

    @Test
    void existsUnlessUnknownOrDeleted() {
        TenantEnvironmentId deleting = with("a", TenantEnvironmentStatus.DELETING);
        TenantEnvironmentId deleted = with("b", TenantEnvironmentStatus.DELETED);
        TenantEnvironmentId unknown = TenantEnvironmentId.of("c", "prod");
        when(tenantEnvironments.find(unknown)).thenReturn(Optional.empty());

        assertThat(lookup.exists(deleting)).isTrue();
        assertThat(lookup.exists(deleted)).isFalse();
        assertThat(lookup.exists(unknown)).isFalse();
        assertThat(lookup.exists(unknown)).isFalse();
        verify(tenantEnvironments, times(1)).find(unknown);
    }

    private TenantEnvironmentId with(String tenant, TenantEnvironmentStatus status) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, "prod");
        when(tenantEnvironments.find(id)).thenReturn(Optional.of(new TenantEnvironment(id, status, null, NOW, NOW)));
        return id;
    }
}
