package app.talkide.controlplane.system;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The embedded default as the README's run command starts it: H2 file database and development keys
 * under the data directory, both surviving a restart, and a log line saying so.
 */
@ExtendWith(OutputCaptureExtension.class)
class LocalModeRestartTest {

    @Test
    void tokensMintedBeforeARestartStillWorkAfterIt(@TempDir Path dataDir, CapturedOutput output) {
        String identity;
        Conversation conversation;
        String workerToken;
        try (ConfigurableApplicationContext first = start(dataDir)) {
            TenantEnvironmentId demo = Fixtures.tenantEnvironment(first);
            identity = Fixtures.identityToken(first, demo).token();
            conversation = Fixtures.conversation(first, demo, "dev");
            workerToken = http(first)
                    .postJson(
                            "/api/v1/worker-gateway/token/mint",
                            "{\"conversationId\":\"" + conversation.id() + "\"}",
                            "Authorization",
                            "Bearer " + identity)
                    .json()
                    .get("token")
                    .asString();
        }
        assertThat(dataDir.resolve("keys/master-keys.properties")).exists();
        assertThat(output.getOut()).contains("running in LOCAL mode").doesNotContain(identity);

        try (ConfigurableApplicationContext second = start(dataDir)) {
            TestHttp http = http(second);
            assertThat(http.get("/api/internal/worker/whoami", "X-Worker-Token", workerToken)
                            .status())
                    .isEqualTo(200);
            assertThat(http.postJson(
                                    "/api/v1/worker-gateway/token/mint",
                                    "{\"conversationId\":\"" + conversation.id() + "\"}",
                                    "Authorization",
                                    "Bearer " + identity)
                            .status())
                    .isEqualTo(200);
        }
    }

    private static ConfigurableApplicationContext start(Path dataDir) {
        assertThat(Files.isDirectory(dataDir)).isTrue();
        return new SpringApplicationBuilder(ControlPlaneApplication.class)
                .run("--server.port=0", "--talkide.data-dir=" + dataDir);
    }

    private static TestHttp http(ConfigurableApplicationContext context) {
        return new TestHttp(
                ((WebServerApplicationContext) context).getWebServer().getPort());
    }
}
