package app.talkide.controlplane.token.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.system.ControlPlaneProperties;
import app.talkide.controlplane.system.RunMode;
import app.talkide.controlplane.token.TokenTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configured keys win; without them only local mode runs, on a development key under the data directory. */
class MasterKeyConfigurationTest {

    @TempDir
    Path dataDir;

    final MasterKeyConfiguration configuration = new MasterKeyConfiguration();

    @Test
    void configuredKeysAreUsedInAnyMode() {
        MasterKeyRing ring = configuration.masterKeyRing(TokenTestSupport.properties(), mode(RunMode.LOCAL));

        assertThat(ring.activeKid()).isEqualTo("k1");
        assertThat(Files.exists(dataDir.resolve("keys"))).isFalse();
    }

    @Test
    void localModeWithoutKeysMakesADevelopmentKey() {
        MasterKeyRing ring =
                configuration.masterKeyRing(TokenTestSupport.properties(List.of(), "k1"), mode(RunMode.LOCAL));

        assertThat(ring.activeKid()).isEqualTo(DevelopmentMasterKeys.DEVELOPMENT_KID);
        assertThat(dataDir.resolve("keys/master-keys.properties")).exists();
    }

    @Test
    void productionWithoutKeysDoesNotStart() {
        assertThatThrownBy(() -> configuration.masterKeyRing(
                        TokenTestSupport.properties(List.of(), "k1"), mode(RunMode.PRODUCTION)))
                .isInstanceOf(InvalidMasterKeys.class)
                .hasMessageContaining("TALKIDE_MASTER_KEYS");
    }

    private ControlPlaneProperties mode(RunMode mode) {
        return new ControlPlaneProperties(mode, dataDir);
    }
}
