package app.talkide.controlplane.local.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * When the simulator is the upstream: local mode without a key, and only then. Production never
 * starts it, and the log says which upstream is in use.
 */
@ExtendWith(OutputCaptureExtension.class)
class SimulatorSelectionTest {

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(SimulatorConfiguration.class, Properties.class)
            .withBean(Clock.class, Clock::systemUTC);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(SimulatorProperties.class)
    static class Properties {}

    @Test
    void localModeWithoutAKeyServesTheSimulatorAsTheUpstreamAndSaysSo(CapturedOutput output) {
        runner.withPropertyValues("talkide.mode=local", "talkide.gateway.api-key=")
                .run(context -> {
                    AnthropicUpstream upstream = context.getBean(AnthropicUpstream.class);
                    assertThat(upstream).isInstanceOf(SimulatedAnthropicUpstream.class);
                    assertThat(upstream.baseUrl().getHost()).isEqualTo("127.0.0.1");
                    TestHttp.Response answer = new TestHttp(upstream.baseUrl().toString())
                            .postJson(
                                    "/v1/messages",
                                    SimulatorFixture.request("are you there?").toString(),
                                    "x-api-key",
                                    upstream.apiKey(),
                                    "anthropic-version",
                                    "2023-06-01");
                    assertThat(answer.status()).isEqualTo(200);
                    assertThat(upstream.toString()).doesNotContain(upstream.apiKey());
                    assertThat(upstream.description()).doesNotContain(upstream.apiKey());
                    assertThat(output.getOut())
                            .contains("Anthropic upstream: the built-in Anthropic simulator at " + upstream.baseUrl())
                            .contains("no ANTHROPIC_API_KEY")
                            .doesNotContain(upstream.apiKey());
                });
    }

    @Test
    void eachStartAdvertisesItsOwnPlaceholderKeyAndRefusesOthers() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            runner.run(
                    context -> keys.add(context.getBean(AnthropicUpstream.class).apiKey()));
        }
        assertThat(keys.get(0)).startsWith("sk-ant-simulator-").isNotEqualTo(keys.get(1));
    }

    @Test
    void theSimulatorStopsListeningWithTheApplication() {
        int[] port = new int[1];
        runner.run(context ->
                port[0] = context.getBean(AnthropicUpstream.class).baseUrl().getPort());

        assertThat(canConnect(port[0])).isFalse();
    }

    @Test
    void aConfiguredKeyOrProductionModeMeansNoSimulator() {
        runner.withPropertyValues("talkide.mode=local", "talkide.gateway.api-key=sk-ant-api03-real")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(SimulatorServer.class)
                        .doesNotHaveBean(AnthropicUpstream.class));
        runner.withPropertyValues("talkide.mode=production", "talkide.gateway.api-key=")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(SimulatorServer.class)
                        .doesNotHaveBean(AnthropicUpstream.class));
    }

    @Test
    void productionNeverStartsTheSimulator(@TempDir Path dataDir, CapturedOutput output) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--talkide.data-dir=" + dataDir,
                "--talkide.tokens.keys.master-keys=k1:" + Base64.getEncoder().encodeToString(new byte[32]),
                "--talkide.tokens.keys.active-kid=k1",
                "--talkide.gateway.api-key=sk-ant-api03-production-key",
                "--spring.security.oauth2.resourceserver.jwt.issuer-uri=http://127.0.0.1:9/issuer",
                "--spring.security.oauth2.resourceserver.jwt.audiences=talkide-console"));
        TestDatabase.freshSettings().forEach((key, value) -> args.add("--" + key + "=" + value));

        try (ConfigurableApplicationContext production = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .profiles("production")
                .run(args.toArray(String[]::new))) {
            assertThat(production.getBeansOfType(SimulatorServer.class)).isEmpty();
            assertThat(production.getBeansOfType(AnthropicUpstream.class).values())
                    .noneMatch(upstream -> upstream instanceof SimulatedAnthropicUpstream);
            assertThat(output.getOut())
                    .contains("PRODUCTION mode")
                    .doesNotContain("Anthropic simulator")
                    .doesNotContain("anthropic-simulator-")
                    .doesNotContain("sk-ant-api03-production-key");
        }
    }

    private static boolean canConnect(int port) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
