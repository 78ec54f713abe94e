package app.talkide.controlplane.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TenantEnvironmentIdTest {

    @Test
    void validNamesFormTheNamespace() {
        TenantEnvironmentId id = TenantEnvironmentId.of("mirek", "dev");
        assertThat(id.namespace()).isEqualTo("mirek-dev");
        assertThat(id.path()).isEqualTo("mirek/dev");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Mirek", "-mirek", "mirek-", "mi_rek", "mi.rek", "mi/rek", "mirek\n", "ä", "a b"})
    void invalidTenantsAreRefused(String tenant) {
        assertThatThrownBy(() -> TenantEnvironmentId.of(tenant, "dev"))
                .isInstanceOf(InvalidTenantEnvironmentName.class)
                .hasMessageContaining("DNS-1123");
    }

    @Test
    void namespaceLongerThan63IsRefused() {
        assertThat(TenantEnvironmentId.of("a".repeat(31), "b".repeat(31)).namespace())
                .hasSize(63);
        assertThatThrownBy(() -> TenantEnvironmentId.of("a".repeat(32), "b".repeat(31)))
                .hasMessageContaining("longer than 63");
    }
}
