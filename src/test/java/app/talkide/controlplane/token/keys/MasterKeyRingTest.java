package app.talkide.controlplane.token.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MasterKeyRingTest {

    static final String SECRET_A = Base64.getEncoder().encodeToString(new byte[32]);
    static final String SECRET_B = Base64.getUrlEncoder().withoutPadding().encodeToString(filled(32, 7));

    @Test
    void manyTenantEnvironmentsCannotGrowTheDerivedKeyCacheWithoutBound() {
        DerivedKeys keys = new DerivedKeys(MasterKeyRing.parse(List.of("k:" + SECRET_A), "k"));

        for (int i = 0; i < DerivedKeys.MAX_CACHED + 5_000; i++) {
            assertThat(keys.verifying("k", KeyPurpose.WORKER_TOKEN, TenantEnvironmentId.of("t" + i, "dev")))
                    .isPresent();
        }

        assertThat(keys.cachedCount()).isBetween(1L, (long) DerivedKeys.MAX_CACHED);
    }

    @Test
    void activeKidSignsAndEveryKidVerifies() {
        MasterKeyRing ring = MasterKeyRing.parse(List.of("old:" + SECRET_A, "new:" + SECRET_B), "new");
        DerivedKeys keys = new DerivedKeys(ring);
        TenantEnvironmentId scope = TenantEnvironmentId.of("acme", "dev");

        assertThat(keys.signing(KeyPurpose.WORKER_TOKEN, scope).kid()).isEqualTo("new");
        assertThat(keys.verifying("old", KeyPurpose.WORKER_TOKEN, scope)).isPresent();
        assertThat(keys.verifying("gone", KeyPurpose.WORKER_TOKEN, scope)).isEmpty();
    }

    @Test
    void derivedKeysDifferByPurposeTenantEnvironmentAndKid() {
        DerivedKeys keys = new DerivedKeys(MasterKeyRing.parse(List.of("a:" + SECRET_A, "b:" + SECRET_B), "a"));
        TenantEnvironmentId acme = TenantEnvironmentId.of("acme", "dev");
        TenantEnvironmentId other = TenantEnvironmentId.of("acme", "prod");

        byte[] worker = keys.signing(KeyPurpose.WORKER_TOKEN, acme).secret();
        assertThat(worker).hasSize(32);
        assertThat(keys.signing(KeyPurpose.COMMAND, acme).secret()).isNotEqualTo(worker);
        assertThat(keys.signing(KeyPurpose.WORKER_TOKEN, other).secret()).isNotEqualTo(worker);
        assertThat(keys.verifying("b", KeyPurpose.WORKER_TOKEN, acme)
                        .orElseThrow()
                        .secret())
                .isNotEqualTo(worker);
        assertThat(keys.signing(KeyPurpose.WORKER_TOKEN, acme).secret()).isEqualTo(worker);
    }

    @Test
    void shortKeyIsRefusedWithoutShowingIt() {
        String shortSecret = Base64.getEncoder().encodeToString(filled(16, 1));
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("k1:" + shortSecret), "k1"))
                .isInstanceOf(InvalidMasterKeys.class)
                .hasMessageContaining("at least 32")
                .hasMessageNotContaining(shortSecret);
    }

    @Test
    void invalidEntriesAreRefused() {
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("k1:%%%notbase64%%%"), "k1"))
                .hasMessageContaining("not valid base64");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("no-colon"), "k1")).hasMessageContaining("kid:base64");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("k1:"), "k1")).hasMessageContaining("kid:base64");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of(":" + SECRET_A), "k1"))
                .hasMessageContaining("kid:base64");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("k1:" + SECRET_A, "k1:" + SECRET_B), "k1"))
                .hasMessageContaining("listed twice");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("k1:" + SECRET_A), "k2"))
                .hasMessageContaining("active kid 'k2'");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of(), "k1")).hasMessageContaining("no master keys");
        assertThatThrownBy(() -> MasterKeyRing.parse(List.of("bad kid!:" + SECRET_A), "bad kid!"))
                .hasMessageContaining("1-32 characters");
    }

    @Test
    void developmentKeysAreCreatedOnceOwnerOnlyAndReused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("keys/master-keys.properties");
        MasterKeyRing first = DevelopmentMasterKeys.loadOrCreate(file);
        MasterKeyRing second = DevelopmentMasterKeys.loadOrCreate(file);
        TenantEnvironmentId scope = TenantEnvironmentId.of("demo", "dev");

        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(new DerivedKeys(second).signing(KeyPurpose.COMMAND, scope).secret())
                .isEqualTo(new DerivedKeys(first)
                        .signing(KeyPurpose.COMMAND, scope)
                        .secret());
        assertThat(first.activeKid()).isEqualTo(DevelopmentMasterKeys.DEVELOPMENT_KID);
    }

    @Test
    void eachDevelopmentKeyFileGetsItsOwnRandomKey(@TempDir Path dir) {
        TenantEnvironmentId scope = TenantEnvironmentId.of("demo", "dev");
        byte[] one = new DerivedKeys(DevelopmentMasterKeys.loadOrCreate(dir.resolve("a/keys.properties")))
                .signing(KeyPurpose.COMMAND, scope)
                .secret();
        byte[] two = new DerivedKeys(DevelopmentMasterKeys.loadOrCreate(dir.resolve("b/keys.properties")))
                .signing(KeyPurpose.COMMAND, scope)
                .secret();
        byte[] ofZeros = new DerivedKeys(MasterKeyRing.parse(List.of("dev-1:" + SECRET_A), "dev-1"))
                .signing(KeyPurpose.COMMAND, scope)
                .secret();

        assertThat(one).isNotEqualTo(two).isNotEqualTo(ofZeros);
    }

    @Test
    void aMasterKeyIsKnownByItsKid() {
        MasterKey key = MasterKey.parse("k1:" + SECRET_B);
        assertThat(key).isEqualTo(MasterKey.parse("k1:" + SECRET_A)).isNotEqualTo(MasterKey.parse("k2:" + SECRET_B));
        assertThat(key).isNotEqualTo("k1");
        assertThat(key.hashCode()).isEqualTo("k1".hashCode());
    }

    @Test
    void toStringNeverShowsKeyMaterial() {
        MasterKey key = MasterKey.parse("k1:" + SECRET_B);
        assertThat(key.toString()).doesNotContain(SECRET_B).contains("redacted");
        DerivedKey derived = new DerivedKeys(MasterKeyRing.parse(List.of("k1:" + SECRET_B), "k1"))
                .signing(KeyPurpose.COMMAND, TenantEnvironmentId.of("demo", "dev"));
        assertThat(derived.toString()).isEqualTo("DerivedKey[kid=k1, secret=<redacted>]");
    }

    static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, (byte) value);
        return bytes;
    }
}
