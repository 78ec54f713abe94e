package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.support.NodeWorkerTests;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Admission against the real Node worker (local mode's child process, the real Agent SDK engine, the built-in
 * simulator as the model): with an engine limit of 2, ten conversations send a message at once. The worker
 * answers the ones beyond its limit 429 worker-busy; the control plane keeps them queued and shows the user
 * {@code worker.status} {@code busy} (never an error), and delivers them as engines free up, so every message is
 * answered in the end. Meanwhile the worker never has more than 2 engine processes: its direct children, sampled
 * throughout. Needs Node.js 20+ and npm (it fails saying so).
 */
@Tag("node-worker")
// Stays: the context runs a Node worker process and data directory of its own, which no other class reuses.
@DirtiesContext
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "talkide.localdev.worker=node",
            "talkide.localdev.node-worker-max-engines=2",
            "talkide.worker.delivery.initial-backoff=50ms",
            "talkide.worker.delivery.max-backoff=1s",
            "talkide.worker.delivery.busy-poll=500ms"
        })
class NodeWorkerAdmissionTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");
    static final int CONVERSATIONS = 10;
    static final int MAX_ENGINES = 2;

    @BeforeAll
    static void nodeIsThere() {
        NodeWorkerTests.requireNodeAndBuildTheWorker();
    }

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        NodeWorkerTests.freshDataDir(registry, "talkide-admission-");
    }

    @Autowired
    LocalWorkerRuntime workers;

    @Autowired
    MessageOutbox outbox;

    @LocalServerPort
    int port;

    @Test
    void tenConversationsAtOnceWithTwoEnginesAreAllAnsweredTheRestWaitQueuedAsBusy() throws Exception {
        long workerPid = nodeWorkerPid();
        List<UUID> conversations = IntStream.range(0, CONVERSATIONS)
                .mapToObj(i -> startConversation())
                .toList();
        List<SseClient> streams = conversations.stream().map(this::stream).toList();
        AtomicInteger mostEngines = new AtomicInteger();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(
                () -> ProcessHandle.of(workerPid)
                        .ifPresent(worker -> mostEngines.accumulateAndGet(
                                (int) worker.children()
                                        .filter(ProcessHandle::isAlive)
                                        .count(),
                                Math::max)),
                0,
                20,
                TimeUnit.MILLISECONDS);
        try {
            // All ten at once: each turn answers slowly, so the first two hold both engines while the rest arrive.
            List<Thread> senders = new ArrayList<>();
            for (UUID conversation : conversations) {
                senders.add(Thread.ofVirtual()
                        .start(() -> send(conversation, "Tell me something. [[sim:slow=400]] [[sim:length=40]]")));
            }
            for (Thread sender : senders) {
                assertThat(sender.join(Duration.ofMinutes(5)))
                        .as("a message was sent")
                        .isTrue();
            }

            await().atMost(Duration.ofMinutes(10))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(streams)
                            .allSatisfy(stream -> assertThat(types(stream)).contains("turn.completed")));
        } finally {
            sampler.shutdownNow();
            assertThat(sampler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }

        for (SseClient stream : streams) {
            assertThat(types(stream)).as("no answer failed").doesNotContain("turn.failed");
            assertThat(statuses(stream)).as("busy is not an error").doesNotContain("unreachable", "unavailable");
        }
        // The worker refused some (it holds two), and their users were told they wait, not that it failed.
        assertThat(streams.stream().filter(stream -> statuses(stream).contains("busy")))
                .hasSizeGreaterThanOrEqualTo(1);
        assertThat(conversations)
                .allSatisfy(id -> assertThat(outbox.nextUndelivered(id)).isEmpty());
        // Exactly the limit: engines did run side by side (warm engines stay until evicted), and never more.
        assertThat(mostEngines.get())
                .as("engine processes the worker ran at once")
                .isEqualTo(MAX_ENGINES);
        streams.forEach(SseClient::close);
    }

    /** The Node worker local mode started: the child of this JVM that runs its entry point. */
    private long nodeWorkerPid() {
        workers.start(DEMO).orElseThrow();
        return ProcessHandle.current()
                .descendants()
                .filter(process -> process.info()
                        .commandLine()
                        .filter(line -> line.contains("dist/src/main.js"))
                        .isPresent())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the Node worker process is not running"))
                .pid();
    }

    private UUID startConversation() {
        TestHttp.Response created = new TestHttp(port)
                .postJson(
                        "/api/conversations",
                        "{\"tenant\":\"demo\",\"env\":\"dev\",\"title\":\"admission\"}",
                        "Authorization",
                        DEV);
        assertThat(created.status()).isEqualTo(201);
        return UUID.fromString(created.json().get("id").asString());
    }

    private void send(UUID conversation, String text) {
        String body = TestHttp.JSON
                .createObjectNode()
                .put("clientMessageId", "m1")
                .put("text", text)
                .toString();
        assertThat(new TestHttp(port)
                        .postJson("/api/conversations/" + conversation + "/messages", body, "Authorization", DEV)
                        .status())
                .isEqualTo(202);
    }

    private SseClient stream(UUID conversation) {
        return SseClient.connect(
                "http://127.0.0.1:" + port + "/api/conversations/" + conversation + "/stream", "Authorization", DEV);
    }

    private static List<String> types(SseClient stream) {
        return stream.events().stream().map(SseClient.Event::type).toList();
    }

    private static List<String> statuses(SseClient stream) {
        return stream.events().stream()
                .filter(event -> "worker.status".equals(event.type()))
                .map(event -> TestHttp.JSON.readTree(event.data()))
                .map(data -> data.path("status").asString())
                .toList();
    }
}
