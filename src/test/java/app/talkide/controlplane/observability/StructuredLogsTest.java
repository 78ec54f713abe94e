package app.talkide.controlplane.observability;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.gateway.AnthropicFixtures;
import app.talkide.controlplane.gateway.GatewayTestSupport;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.token.TokenTestSupport;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The production profile logs JSON lines on stdout: every line parses, a gateway call is one INFO line
 * with its trace and span ids, who made it, and its outcome, and no secret or message text is in any line.
 */
@DatabaseTest
@ExtendWith(OutputCaptureExtension.class)
class StructuredLogsTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String MESSAGE_TEXT = "my-private-question-7f3a";

    @TempDir
    Path dataDir;

    @Test
    void productionLogsAreJsonLinesWithTraceAndCallerIdsAndNoSecrets(CapturedOutput output) {
        WireMockServer upstream =
                new WireMockServer(WireMockConfiguration.options().dynamicPort());
        upstream.start();
        upstream.stubFor(post(urlEqualTo("/v1/messages"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(AnthropicFixtures.json(
                                AnthropicFixtures.OPUS, AnthropicFixtures.usage(12, 0, 0, 34)))));
        GatewayTestSupport worker;
        String buildVersion;
        try (ConfigurableApplicationContext app = start(upstream.baseUrl())) {
            buildVersion = app.getBean(BuildProperties.class).getVersion();
            TestHttp http = new TestHttp(
                    ((WebServerApplicationContext) app).getWebServer().getPort());
            worker = GatewayTestSupport.newWorker(app);
            String body = "{\"model\":\"" + AnthropicFixtures.OPUS + "\",\"max_tokens\":64,\"messages\":"
                    + "[{\"role\":\"user\",\"content\":\"" + MESSAGE_TEXT + "\"}]}";
            TestHttp.Response answer =
                    http.postJson(GatewayTestSupport.MESSAGES, body, "X-Worker-Token", worker.token());
            assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        } finally {
            upstream.stop();
        }

        List<JsonNode> lines = jsonLines(output.getOut());
        JsonNode call = lines.stream()
                .filter(line -> line.path("message").asString().startsWith("Gateway call"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no gateway call line in:\n" + output.getOut()));
        assertThat(call.path("log").path("level").asString()).isEqualTo("INFO");
        assertThat(buildVersion).as("the pom's version, from build-info").matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(lines)
                .as("every line names the build it came from")
                .allSatisfy(
                        line -> assertThat(line.path("service").path("version").asString())
                                .isEqualTo(buildVersion));
        assertThat(call.path("traceId").asString()).matches("[0-9a-f]{32}");
        assertThat(call.path("spanId").asString()).matches("[0-9a-f]{16}");
        assertThat(call.path("tenant").asString())
                .isEqualTo(worker.tenantEnvironment().tenant());
        assertThat(call.path("env").asString())
                .isEqualTo(worker.tenantEnvironment().env());
        assertThat(call.path("conversationId").asString())
                .isEqualTo(worker.conversation().id().toString());
        assertThat(call.path("userId").asString()).isEqualTo(worker.userId());
        assertThat(call.path("model").asString()).isEqualTo(AnthropicFixtures.OPUS);
        assertThat(call.path("outcome").asString()).isEqualTo("completed");
        assertThat(call.path("upstreamStatus").asInt()).isEqualTo(200);
        assertThat(call.path("outputTokens").asLong()).isEqualTo(34);
        assertThat(call.path("costMicros").asLong()).isPositive();
        assertThat(call.has("durationMs")).isTrue();
        assertThat(lines.stream().filter(line -> line.path("message").asString().startsWith("Gateway call")))
                .as("one line per call, nothing per event")
                .hasSize(1);

        assertThat(output.getOut())
                .doesNotContain(worker.token())
                .doesNotContain(GatewayTestSupport.API_KEY)
                .doesNotContain(TokenTestSupport.KEY_1)
                .doesNotContain(MESSAGE_TEXT);
    }

    /** Every line the application wrote after the banner is one JSON object. */
    private static List<JsonNode> jsonLines(String out) {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.split("\\R")) {
            if (line.startsWith("{")) {
                lines.add(JSON.readTree(line));
            }
        }
        assertThat(lines).as("JSON lines on stdout").isNotEmpty();
        assertThat(out.lines().filter(line -> line.matches("^\\d{4}-\\d{2}-\\d{2}[T ].*")))
                .as("no plain-text log lines")
                .isEmpty();
        return lines;
    }

    private ConfigurableApplicationContext start(String upstreamUrl) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--talkide.data-dir=" + dataDir,
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                "--talkide.gateway.api-key=" + GatewayTestSupport.API_KEY,
                "--talkide.gateway.upstream-url=" + upstreamUrl,
                "--spring.security.oauth2.resourceserver.jwt.issuer-uri=http://127.0.0.1:1/realms/none",
                "--spring.security.oauth2.resourceserver.jwt.audiences=talkide-console"));
        Map<String, Object> database = TestDatabase.freshSettings();
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        // Spring Boot configures logging once while any application runs in this JVM: a context another class
        // left in the test context cache would keep its plain-text logging, so this one's JSON is set up anew.
        LoggingSystem.get(ControlPlaneApplication.class.getClassLoader()).cleanUp();
        return new SpringApplicationBuilder(ControlPlaneApplication.class)
                .profiles("production")
                .run(args.toArray(String[]::new));
    }
}
