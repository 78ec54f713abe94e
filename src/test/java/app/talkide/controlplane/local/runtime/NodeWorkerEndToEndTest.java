package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * End to end in local mode: the control plane, the Node worker (the real Agent SDK engine) as its child
 * process and the built-in simulator as the model. A real tool runs in the working tree (a git repository of
 * its own under a relative data directory inside this checkout), an interrupt ends a slow turn, and a worker
 * killed mid-turn is restarted, reports the turn {@code worker_restarted} and resumes the session from disk (the
 * next model call carries the earlier turns, which the simulator's {@code [[sim:recall]]} reports).
 * Needs Node.js 20+ and npm (it fails saying so); the first run installs and builds {@code worker/}.
 */
@Tag("node-worker")
// Stays: the context runs a Node worker process and data directory of its own, which no other class reuses.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.localdev.worker=node",
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=1s"
        })
class NodeWorkerEndToEndTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    /** The engine starts in seconds on a quiet machine; a busy shared one is much slower. */
    static final Duration TURN = Duration.ofMinutes(3);

    static Path dataDir;

    @BeforeAll
    static void nodeIsThere() throws IOException {
        NodeWorkerProcess.missingRuntime().ifPresent(missing -> {
            throw new IllegalStateException("This test runs the Node worker: " + missing);
        });
        NodeWorkerProcess.prepare(Path.of("worker").toAbsolutePath());
    }

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) throws IOException {
        // Relative and inside this repository's checkout, as `./mvnw spring-boot:run` has it, while the worker
        // runs in worker/: a path handed over as given, or git walking up, would reach the wrong place.
        dataDir = Path.of("./target/node-e2e-" + UUID.randomUUID() + "/data");
        Files.createDirectories(dataDir);
        registry.add("talkide.data-dir", () -> dataDir.toString());
    }

    @Autowired
    LocalWorkerRuntime workers;

    @LocalServerPort
    int port;

    @Test
    void aRealToolRunsInTheWorkingTreeAndTheBrowserSeesIt() throws IOException {
        Path workspace = dataDir.resolve("workers").resolve(DEMO.namespace()).resolve("workspace");
        Files.createDirectories(workspace);
        Files.writeString(workspace.resolve("planted-by-the-test.txt"), "hello");
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(conversation, "c1", "List the files. [[sim:tool_use=Bash {\"command\":\"ls\"}]]");

            await().atMost(TURN)
                    .untilAsserted(() -> assertThat(types(stream)).containsAnyOf("turn.completed", "turn.failed"));
            assertThat(types(stream))
                    .containsSubsequence("turn.started", "tool.started", "tool.completed", "turn.completed");
            JsonNode completed = data(stream, "tool.completed");
            assertThat(completed.get("name").asString()).isEqualTo("Bash");
            assertThat(completed.get("output").asString()).contains("planted-by-the-test.txt");
            assertThat(data(stream, "turn.completed")
                            .get("usage")
                            .get("outputTokens")
                            .asLong())
                    .isPositive();
        }
        // Every model call's usage and both tool events reach the admin view (sent in the background).
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(adminReports(conversation, "usage")).hasSizeGreaterThanOrEqualTo(2);
            assertThat(adminReports(conversation, "tool-events")).hasSize(2);
        });
    }

    @Test
    void bashRunsInTheWorkingTreeUnderDataWhichIsAGitRepositoryOfItsOwn() throws IOException {
        Path workingTree = dataDir.resolve("workers/demo-dev/workspace").toRealPath();
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(
                    conversation,
                    "c1",
                    "Where am I? [[sim:tool_use=Bash {\"command\":\"echo top=$(git rev-parse --show-toplevel)"
                            + " && echo pwd=$(pwd)\"}]]");

            await().atMost(TURN)
                    .untilAsserted(() -> assertThat(types(stream)).containsAnyOf("turn.completed", "turn.failed"));
            JsonNode completed = data(stream, "tool.completed");
            assertThat(completed.get("name").asString()).isEqualTo("Bash");
            // Marked lines: the machine's shell start-up may print lines of its own (pyenv, say).
            assertThat(completed.get("output").asString().lines().filter(line -> line.matches("(top|pwd)=.*")))
                    .containsExactly("top=" + workingTree, "pwd=" + workingTree);
        }
        assertThat(workingTree.toString()).endsWith("/data/workers/demo-dev/workspace");
    }

    @Test
    void maraReportsAnIssueThroughHerMcpServerAndOperatorsSeeIt() {
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(
                    conversation,
                    "c1",
                    "Report it. [[sim:tool_use=mcp__talkide-issue-tracking__report_issue"
                            + " {\"title\":\"The build is broken\",\"severity\":\"high\"}]]");
            await().atMost(TURN)
                    .untilAsserted(() -> assertThat(types(stream)).containsAnyOf("turn.completed", "turn.failed"));
            assertThat(types(stream)).contains("tool.completed", "turn.completed");
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            JsonNode issues = adminReports(conversation, "issues");
            assertThat(issues).hasSize(1);
            assertThat(issues.get(0).get("report").get("title").asString()).isEqualTo("The build is broken");
            assertThat(issues.get(0).get("report").get("severity").asString()).isEqualTo("high");
        });
    }

    private JsonNode adminReports(UUID conversation, String kind) {
        return new TestHttp(port)
                .get("/api/admin/reports?conversationId=" + conversation + "&kind=" + kind, "Authorization", DEV)
                .json();
    }

    @Test
    void anInterruptEndsASlowTurn() {
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(conversation, "c1", "Tell a long story. [[sim:slow=1000]] [[sim:length=400]]");
            await().atMost(TURN).untilAsserted(() -> assertThat(types(stream)).contains("text.delta"));

            TestHttp http = new TestHttp(port);
            assertThat(http.postJson("/api/conversations/" + conversation + "/interrupt", "{}", "Authorization", DEV)
                            .status())
                    .isEqualTo(202);

            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(types(stream)).contains("turn.failed"));
            assertThat(data(stream, "turn.failed").get("error").get("type").asString())
                    .isEqualTo("interrupted");
        }
    }

    @Test
    void aWorkerKilledMidTurnIsRestartedReportsTheTurnAndResumesTheSession() {
        UUID conversation = startConversation();

        try (SseClient stream = stream(conversation)) {
            send(conversation, "c1", "Remember the first prompt");
            await().atMost(TURN).untilAsserted(() -> assertThat(types(stream)).contains("turn.completed"));
            send(conversation, "c2", "Tell a long story. [[sim:slow=1000]] [[sim:length=400]]");
            await().atMost(TURN)
                    .untilAsserted(() -> assertThat(types(stream)).containsSubsequence("turn.completed", "text.delta"));

            workers.stopWorker(DEMO);
            workers.start(DEMO);

            await().atMost(TURN).untilAsserted(() -> assertThat(types(stream)).contains("turn.failed"));
            assertThat(data(stream, "turn.failed").get("error").get("type").asString())
                    .isEqualTo("worker_restarted");

            // The restarted engine resumed the session from disk: the model call carries the earlier turns.
            String recall = send(conversation, "c3", "Are you back? [[sim:recall]]");
            await().atMost(TURN)
                    .untilAsserted(() -> assertThat(stream.events().stream()
                                    .filter(e -> e.type().equals("turn.completed"))
                                    .map(e -> TestHttp.JSON
                                            .readTree(e.data())
                                            .path("messageId")
                                            .asString()))
                            .contains(recall));
            assertThat(answer(stream, recall)).contains("the first “Remember the first prompt”");
            assertThat(stream.ids()).doesNotHaveDuplicates();
        }
    }

    /** The answer to a message: its turn's text deltas, joined. */
    private static String answer(SseClient stream, String messageId) {
        return stream.events().stream()
                .filter(e -> e.type().equals("text.delta"))
                .map(e -> TestHttp.JSON.readTree(e.data()))
                .filter(data -> messageId.equals(data.path("messageId").asString()))
                .map(data -> data.path("text").asString())
                .collect(java.util.stream.Collectors.joining());
    }

    private UUID startConversation() {
        TestHttp http = new TestHttp(port);
        TestHttp.Response created = http.postJson(
                "/api/conversations",
                "{\"tenant\":\"demo\",\"env\":\"dev\",\"title\":\"node worker\"}",
                "Authorization",
                DEV);
        assertThat(created.status()).isEqualTo(201);
        return UUID.fromString(created.json().get("id").asString());
    }

    /** Sends a message; returns its id, which the events of its turn carry. */
    private String send(UUID conversation, String clientMessageId, String text) {
        String body = TestHttp.JSON
                .createObjectNode()
                .put("clientMessageId", clientMessageId)
                .put("text", text)
                .toString();
        TestHttp.Response accepted = new TestHttp(port)
                .postJson("/api/conversations/" + conversation + "/messages", body, "Authorization", DEV);
        assertThat(accepted.status()).isEqualTo(202);
        return accepted.json().path("messageId").asString();
    }

    private SseClient stream(UUID conversation) {
        return SseClient.connect(
                "http://127.0.0.1:" + port + "/api/conversations/" + conversation + "/stream", "Authorization", DEV);
    }

    private static List<String> types(SseClient stream) {
        return stream.events().stream().map(SseClient.Event::type).toList();
    }

    private static JsonNode data(SseClient stream, String type) {
        return stream.events().stream()
                .filter(e -> e.type().equals(type))
                .map(e -> TestHttp.JSON.readTree(e.data()))
                .findFirst()
                .orElseThrow();
    }
}
