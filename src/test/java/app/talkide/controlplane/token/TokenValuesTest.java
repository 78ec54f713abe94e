package app.talkide.controlplane.token;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The token package's small values: what a principal acts for, the reasons' codes, keys kept out of logs. */
class TokenValuesTest {

    @Test
    void aWorkerActsForItsOwnConversationOnly() {
        UUID conversation = UUID.randomUUID();
        WorkerPrincipal principal =
                new WorkerPrincipal(TenantEnvironmentId.of("acme", "prod"), conversation, "ann", "jti", Instant.EPOCH);

        assertThat(principal.actsFor(conversation)).isTrue();
        assertThat(principal.actsFor(UUID.randomUUID())).isFalse();
    }

    @Test
    void aReasonsCodeIsItsNameInLowerCase() {
        assertThat(RejectionReason.UNKNOWN_TENANT_ENVIRONMENT.code()).isEqualTo("unknown_tenant_environment");
    }

    @Test
    void theKeysPropertyNeverPrintsKeyMaterial() {
        String printed = new TokenProperties.Keys(List.of("k1:" + TokenTestSupport.KEY_1), "k1").toString();

        assertThat(printed).isEqualTo("Keys[masterKeys=<1 redacted>, activeKid=k1]");
    }
}
