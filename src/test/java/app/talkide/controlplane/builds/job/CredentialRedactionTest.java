package app.talkide.controlplane.builds.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.builds.Build;
import app.talkide.controlplane.builds.BuildKind;
import app.talkide.controlplane.builds.BuildSpec;
import app.talkide.controlplane.builds.BuildState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The push credential's values, read with the real fabric8 client from the namespace's Secret, are taken
 * out of an image build's log lines; a Secret that cannot be read lets no line through unredacted.
 */
@EnableKubernetesMockClient(crud = true)
class CredentialRedactionTest {

    static final String SECRET = "talkide-registry-credentials";

    KubernetesClient client;
    KubernetesMockServer server;

    final TenantEnvironmentId acme = new TenantEnvironmentId("acme", "dev");

    @Test
    void everyFormOfTheCredentialAStepCouldPrintAsItIsIsRedacted() {
        String password = "pa\"ss\\word-0123456789";
        String auth = base64("robot$acme:" + password);
        String escaped = "pa\\\"ss\\\\word-0123456789";
        secret("{\"auths\":{\"registry.example.com\":{\"auth\":\"" + auth + "\",\"password\":\"" + escaped
                + "\",\"identitytoken\":\"id-token-abcdefgh\"},\"other.example\":{\"registrytoken\":\"short\"}}}");
        CredentialRedaction redaction = new CredentialRedaction(client, SECRET);

        List<String> lines = redaction.redact(
                build(BuildKind.IMAGE),
                List.of(
                        "{\"auth\":\"" + auth + "\",\"password\":\"" + escaped + "\"}",
                        "password=" + password,
                        "robot$acme:" + password,
                        "id-token-abcdefgh and short",
                        "Step 1/3 : FROM debian"));

        String mark = CredentialRedaction.MARK;
        assertThat(lines)
                .containsExactly(
                        "{\"auth\":\"" + mark + "\",\"password\":\"" + mark + "\"}",
                        "password=" + mark,
                        mark,
                        mark + " and short", // under 8 characters: left alone
                        "Step 1/3 : FROM debian");
    }

    @Test
    void aGradleBuildsLogIsLeftAsItIsWithoutReadingTheSecret() {
        List<String> lines = List.of("BUILD SUCCESSFUL");
        assertThat(new CredentialRedaction(client, SECRET).redact(build(BuildKind.GRADLE), lines))
                .isSameAs(lines);
    }

    @Test
    void aSecretThatCannotBeReadLetsNoLineThrough() {
        server.expect()
                .get()
                .withPath("/api/v1/namespaces/" + acme.namespace() + "/secrets/" + SECRET)
                .andReturn(403, "{}")
                .always();
        CredentialRedaction redaction = new CredentialRedaction(client, SECRET);

        assertThatThrownBy(() -> redaction.redact(build(BuildKind.IMAGE), List.of("anything")))
                .isInstanceOf(CredentialRedaction.Unavailable.class)
                .hasMessageContaining("403");
    }

    private void secret(String dockerConfig) {
        client.secrets()
                .inNamespace(acme.namespace())
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(SECRET)
                        .endMetadata()
                        .withType("kubernetes.io/dockerconfigjson")
                        .addToData(".dockerconfigjson", base64(dockerConfig))
                        .build())
                .create();
    }

    private Build build(BuildKind kind) {
        return new Build(
                UUID.randomUUID(),
                1,
                acme,
                UUID.randomUUID(),
                "alice",
                new BuildSpec(kind, List.of(), List.of(), null, null, null),
                BuildState.RUNNING,
                "job-1",
                null,
                Instant.EPOCH,
                Instant.EPOCH,
                null);
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
