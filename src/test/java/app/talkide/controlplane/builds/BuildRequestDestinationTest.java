package app.talkide.controlplane.builds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An image build pushes only inside its own tenant-environment's part of the registry: acme/dev neither
 * over acme/prod's images nor under another tenant whose name starts with "acme".
 */
class BuildRequestDestinationTest {

    static final BuildProperties.Image IMAGE = new BuildProperties.Image(
            "kaniko:test", "registry.example.com/{tenant}/{env}/", "talkide-registry-credentials", null);

    @Test
    void aDestinationInsideTheTenantEnvironmentsPrefixIsAccepted() {
        assertThat(image("registry.example.com/acme/dev/app:1").destination())
                .isEqualTo("registry.example.com/acme/dev/app:1");
        assertThat(image("registry.example.com/acme/dev/team/api-server").destination())
                .isEqualTo("registry.example.com/acme/dev/team/api-server");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "registry.example.com/acme/prod/app:1", // another env of the same tenant
                "registry.example.com/acme-corp/dev/app:1", // a tenant whose name starts the same
                "registry.example.com/acme/devx/app:1", // an env whose name starts the same
                "registry.example.com/acme/dev/", // no repository at all
                "registry.example.com/acme/dev/../prod/app:1", // a climb out
                "registry.example.com/acme/dev/./app:1",
                "registry.example.com/acme/dev//app:1",
                "docker.io/evil/app:1"
            })
    void aDestinationOutsideItIsRefused(String destination) {
        assertThatThrownBy(() -> image(destination)).isInstanceOf(BuildProblems.InvalidBuildRequest.class);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "registry.example.com/{tenant}/",
                "registry.example.com/{env}/",
                "registry.example.com/{tenant}/{env}"
            })
    void aRegistryPrefixWithoutTenantEnvAndTrailingSlashIsRefusedAtStartUp(String prefix) {
        assertThatThrownBy(() -> new BuildProperties.Image("kaniko:test", prefix, "credentials", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{tenant}")
                .hasMessageContaining("{env}");
    }

    private static BuildSpec image(String destination) {
        return new BuildRequest("image", null, null, "Dockerfile", ".", destination).validate("acme", "dev", IMAGE);
    }
}
