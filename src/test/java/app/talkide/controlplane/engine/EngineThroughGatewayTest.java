package app.talkide.controlplane.engine;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.support.TestHttp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The agent engine the workers run (Claude Code 2.1.x and the Agent SDK 0.3.x, pinned in
 * {@code src/test/engine}), started as a worker starts it: pointed at the gateway of a control plane in
 * local mode (so the built-in simulator answers) with a WorkerToken minted from an identity token the
 * admin API issued. As root the engine will not skip permission checks, so the tools it may use are
 * allowed explicitly; it gets a config directory of its own and no network beyond the control plane.
 * One test drives the worker local mode embeds the same way, through the browser API.
 */
@Tag("engine")
class EngineThroughGatewayTest {

    static final String DEV = TestHttp.basic("dev", "dev");

    @TempDir
    static Path dataDir;

    static ConfigurableApplicationContext controlPlane;
    static TestHttp http;
    static String gateway;

    @BeforeAll
    static void start() throws Exception {
        Engine.install();
        controlPlane = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .run(
                        "--server.port=0",
                        "--talkide.data-dir=" + dataDir,
                        "--talkide.simulator.first-token-delay=20ms",
                        "--talkide.simulator.chunk-delay=2ms");
        int port = ((WebServerApplicationContext) controlPlane).getWebServer().getPort();
        http = new TestHttp(port);
        gateway = "http://127.0.0.1:" + port + "/api/internal/gateway/anthropic";
    }

    @AfterAll
    static void stop() {
        if (controlPlane != null) {
            controlPlane.close();
        }
    }

    @Test
    void printModeAnswersWithTheSimulatorAndEachModelCallIsBilledByItsFamily(@TempDir Path home, @TempDir Path work)
            throws Exception {
        UUID conversation = conversation();

        Engine.Run run = Engine.cli(
                List.of("-p", "Explain the gateway", "--output-format", "stream-json", "--verbose"),
                work,
                environment(home, conversation));

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        JsonNode result = result(run);
        assertThat(result.path("is_error").asBoolean(true))
                .as(result.toString())
                .isFalse();
        assertThat(result.path("result").asString()).startsWith("Simulated reply to “Explain the gateway”.");
        List<Map<String, Object>> records = usageRecords(conversation, modelCalls(run));
        for (Map<String, Object> record : records) {
            String model = (String) record.get("model");
            assertThat(model).as("the engine's own model id").startsWith("claude-");
            assertThat(model).startsWith("claude-" + record.get("model_family") + "-");
            assertThat(record.get("outcome")).isEqualTo("completed");
            assertThat((Long) record.get("cost_micros")).isPositive();
        }
    }

    @Test
    void aToolMarkerMakesTheEngineRunBashAndBothModelCallsAreDebited(@TempDir Path home, @TempDir Path work)
            throws Exception {
        Files.writeString(work.resolve("engine-probe.txt"), "probe");
        UUID conversation = conversation();
        long spentBefore = spent();

        Engine.Run run = Engine.cli(
                List.of(
                        "-p",
                        "List the files [[sim:tool_use=Bash {\"command\":\"ls\",\"description\":\"List files\"}]]",
                        "--output-format",
                        "stream-json",
                        "--verbose",
                        "--allowedTools",
                        "Bash",
                        "--permission-mode",
                        "acceptEdits"),
                work,
                environment(home, conversation));

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        // The engine ran ls and sent its output back as the tool_result of the next request ...
        String toolResults = run.jsonLines().stream()
                .map(TestHttp.JSON::readTree)
                .filter(line -> line.path("type").asString().equals("user"))
                .map(line -> line.path("message").path("content").toString())
                .reduce("", String::concat);
        assertThat(toolResults).contains("tool_result").contains("engine-probe.txt");
        // ... whose answer quotes it.
        assertThat(result(run).path("result").asString()).startsWith("The Bash tool returned “engine-probe.txt”.");
        assertThat(modelCalls(run)).isEqualTo(2);
        List<Map<String, Object>> records = usageRecords(conversation, 2);
        long cost = records.stream().mapToLong(r -> (Long) r.get("cost_micros")).sum();
        assertThat(spent() - spentBefore).isEqualTo(cost);
    }

    @Test
    void theAgentSdkStreamsTextDeltasBeforeTheResult(@TempDir Path home, @TempDir Path work) throws Exception {
        UUID conversation = conversation();

        Engine.Run run = Engine.sdkQuery("Stream this", work, environment(home, conversation));

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        List<JsonNode> messages =
                run.jsonLines().stream().map(TestHttp.JSON::readTree).toList();
        int firstDelta = -1;
        int resultAt = -1;
        StringBuilder streamed = new StringBuilder();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            JsonNode delta = message.path("event").path("delta");
            if (message.path("type").asString().equals("stream_event")
                    && delta.path("type").asString().equals("text_delta")) {
                firstDelta = firstDelta < 0 ? i : firstDelta;
                streamed.append(delta.path("text").asString());
            }
            if (message.path("type").asString().equals("result")) {
                resultAt = i;
            }
        }
        assertThat(firstDelta).as("a text delta arrived").isNotNegative();
        assertThat(resultAt).as("the result arrived").isGreaterThan(firstDelta);
        assertThat(streamed.toString()).startsWith("Simulated reply to “Stream this”.");
        assertThat(messages.get(resultAt).path("result").asString()).isEqualTo(streamed.toString());
        assertThat(usageRecords(conversation, 1)).hasSize(1);
    }

    /**
     * The README's chain, with the worker local mode embeds (the reference worker, whose one tool is
     * {@code current_time}): two markers, two tool runs, one per model call, and an answer quoting both.
     */
    @Test
    void theEmbeddedWorkerRunsAChainOfToolMarkersOneCallAtATime() {
        UUID conversation = conversation();

        TestHttp.Response accepted = http.postJson(
                "/api/conversations/" + conversation + "/messages",
                "{\"text\":\"What time is it, twice? [[sim:tool_use=current_time]] [[sim:tool_use=current_time]]\","
                        + "\"clientMessageId\":\"chain-1\"}",
                "Authorization",
                DEV);
        assertThat(accepted.status()).as(accepted.body()).isBetween(200, 202);

        List<JsonNode> events = Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(
                        () -> events(conversation),
                        all -> all.stream()
                                .anyMatch(e -> e.path("type").asString().matches("turn\\.(completed|failed)")));
        List<String> types = events.stream().map(e -> e.path("type").asString()).toList();
        assertThat(types).endsWith("turn.completed");
        assertThat(types.stream().filter("tool.completed"::equals)).hasSize(2);
        StringBuilder answer = new StringBuilder();
        events.stream()
                .filter(e -> e.path("type").asString().equals("text.delta"))
                .forEach(e -> answer.append(e.path("data").path("text").asString()));
        assertThat(answer.toString())
                .containsSubsequence(
                        "Calling the current_time tool.",
                        "The current_time tool returned “",
                        "Calling the current_time tool.",
                        "The current_time tool returned “",
                        "The current_time tool returned “");
        assertThat(usageRecords(conversation, 3)).hasSize(3);
    }

    private static List<JsonNode> events(UUID conversation) {
        List<JsonNode> events = new java.util.ArrayList<>();
        http.get("/api/conversations/" + conversation + "/events?after=0&limit=1000", "Authorization", DEV)
                .json()
                .path("events")
                .forEach(events::add);
        return events;
    }

    /** A conversation of dev in demo/dev, the tenant-environment local mode seeds. */
    private static UUID conversation() {
        TestHttp.Response created =
                http.postJson("/api/conversations", "{\"tenant\":\"demo\",\"env\":\"dev\"}", "Authorization", DEV);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return UUID.fromString(created.json().path("id").asString());
    }

    /** What a worker holds: an identity token from the admin API, traded for a WorkerToken of the conversation. */
    private static String workerToken(UUID conversation) {
        TestHttp.Response identity =
                http.postJson("/api/admin/tenant-environments/demo/dev/identity-tokens", "", "Authorization", DEV);
        assertThat(identity.status()).as(identity.body()).isEqualTo(201);
        TestHttp.Response minted = http.postJson(
                "/api/v1/worker-gateway/token/mint",
                "{\"conversationId\":\"" + conversation + "\"}",
                "Authorization",
                "Bearer " + identity.json().path("token").asString());
        assertThat(minted.status()).as(minted.body()).isEqualTo(200);
        return minted.json().path("token").asString();
    }

    private static Map<String, String> environment(Path home, UUID conversation) throws IOException {
        Map<String, String> environment = new HashMap<>();
        environment.put("HOME", home.toString());
        environment.put(
                "CLAUDE_CONFIG_DIR",
                Files.createDirectories(home.resolve(".claude")).toString());
        environment.put("ANTHROPIC_BASE_URL", gateway);
        environment.put("ANTHROPIC_CUSTOM_HEADERS", "X-Worker-Token: " + workerToken(conversation));
        // The engine wants a key to start; the gateway drops whatever x-api-key a worker sends.
        environment.put("ANTHROPIC_API_KEY", "sk-ant-inert-engine-test");
        environment.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        environment.put("DISABLE_TELEMETRY", "1");
        environment.put("DISABLE_AUTOUPDATER", "1");
        environment.put("DISABLE_ERROR_REPORTING", "1");
        environment.put("ENGINE_ALLOWED_TOOLS", "Bash");
        return environment;
    }

    private static JsonNode result(Engine.Run run) {
        return run.jsonLines().stream()
                .map(TestHttp.JSON::readTree)
                .filter(line -> line.path("type").asString().equals("result"))
                .reduce((first, second) -> second)
                .orElseThrow(() -> new AssertionError("no result line in:\n" + run.stdout() + run.stderr()));
    }

    /** Model calls the engine made: distinct message ids of its assistant messages. */
    private static int modelCalls(Engine.Run run) {
        return (int) run.jsonLines().stream()
                .map(TestHttp.JSON::readTree)
                .filter(line -> line.path("type").asString().equals("assistant"))
                .map(line -> line.path("message").path("id").asString())
                .distinct()
                .count();
    }

    /**
     * The conversation's usage records of model calls, once there are {@code expected} of them: a call is
     * booked when its response has closed, which may be just after the engine has read its end.
     */
    private static List<Map<String, Object>> usageRecords(UUID conversation, int expected) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> usageRecords(conversation).size() >= expected);
        List<Map<String, Object>> records = usageRecords(conversation);
        assertThat(records).hasSize(expected);
        return records;
    }

    private static List<Map<String, Object>> usageRecords(UUID conversation) {
        return controlPlane
                .getBean(JdbcTemplate.class)
                .queryForList(
                        "select model, model_family, cost_micros, outcome from usage_record"
                                + " where conversation_id = ? and endpoint = 'messages' order by started_at",
                        conversation);
    }

    private static long spent() {
        return http.get("/api/me/usage", "Authorization", DEV)
                .json()
                .path("spentMicros")
                .asLong();
    }
}
