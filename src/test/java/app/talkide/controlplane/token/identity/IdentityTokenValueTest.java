package app.talkide.controlplane.token.identity;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The token's shape, its hash, and the instants a stored token stops being valid at. */
class IdentityTokenValueTest {

    @Test
    void generatedTokensHaveTheShapeAndDiffer() {
        String one = IdentityTokenValue.generate();
        String two = IdentityTokenValue.generate();

        assertThat(one).startsWith("tkwi_").hasSize(48).isNotEqualTo(two);
        assertThat(IdentityTokenValue.looksValid(one)).isTrue();
    }

    @Test
    void onlyTheExactShapeLooksValid() {
        String body = "A".repeat(43);
        assertThat(IdentityTokenValue.looksValid("tkwi_" + body)).isTrue();
        assertThat(IdentityTokenValue.looksValid("tkwi_" + body + "A")).isFalse();
        assertThat(IdentityTokenValue.looksValid("tkwi_" + body.substring(1))).isFalse();
        assertThat(IdentityTokenValue.looksValid("tkwx_" + body)).isFalse();
        assertThat(IdentityTokenValue.looksValid("tkwi_" + body.substring(1) + "+"))
                .isFalse();
    }

    @Test
    void theHashIsSha256InHex() {
        assertThat(IdentityTokenValue.hash("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void aRecordIsValidUntilTheInstantItExpiresOrIsRevoked() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        TenantEnvironmentId scope = TenantEnvironmentId.of("acme", "prod");
        UUID id = UUID.randomUUID();

        assertThat(new IdentityTokenRecord(id, scope, now, now.plusMillis(1), null).validAt(now))
                .isTrue();
        assertThat(new IdentityTokenRecord(id, scope, now, now, null).validAt(now))
                .isFalse();
        assertThat(new IdentityTokenRecord(id, scope, now, now.plusSeconds(9), now.plusMillis(1)).validAt(now))
                .isTrue();
        assertThat(new IdentityTokenRecord(id, scope, now, now.plusSeconds(9), now).validAt(now))
                .isFalse();
    }
}
