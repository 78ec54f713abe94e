package app.talkide.controlplane.worker.stream;

import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.conversation.ConversationEvent;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.MessageOutbox;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.local.referenceworker.ReferenceWorker;
import app.talkide.controlplane.local.referenceworker.ReferenceWorkerSettings;
import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.support.AnthropicStreams;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.support.WorkerContractClient;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.CommandKeys;
import app.talkide.controlplane.token.command.TestCommandSigning;
import app.talkide.controlplane.worker.TestWorkerLocators;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerRuntime;
import app.talkide.controlplane.worker.client.WorkerClient;
import app.talkide.controlplane.workercontract.SseEventReader.SseEvent;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Two "replicas" (two {@link WorkerStreams} with their own lease holder ids) on one database and one
 * event log, consuming a reference worker that streams a long answer slowly. When the first stops
 * mid-turn, by handing over or by dying, the second takes the stream over: the log ends up with exactly
 * the worker's events, each once, in the worker's order.
 */
@DatabaseTest
// A context of its own (own properties): close it afterwards so its connection pool does not linger.
@DirtiesContext
@SpringBootTest(
        properties = {
            "talkide.worker.stream.lease-ttl=1s",
            "talkide.worker.stream.lease-renew-interval=200ms",
            "talkide.worker.stream.sweep-interval=200ms",
            "talkide.worker.stream.cursor-interval=100ms"
        })
class WorkerStreamFailoverTest {

    static final String IDENTITY = "tkwi_" + "f".repeat(43);

    @TempDir
    Path configDir;

    @Autowired
    ApplicationContext context;

    @Autowired
    StreamLeaseRepository leases;

    @Autowired
    ConversationDirectory directory;

    @Autowired
    ConversationEventLog eventLog;

    @Autowired
    WorkerClient client;

    @Autowired
    WorkerStatusNotices notices;

    @Autowired
    WorkerProperties properties;

    @Autowired
    MessageOutbox messages;

    @Autowired
    Traces traces;

    @Autowired
    TaskScheduler scheduler;

    WireMockServer controlPlane;
    ReferenceWorker worker;
    WorkerContractClient contract;
    Conversation conversation;
    WorkerStreams replicaA;
    WorkerStreams replicaB;
    WorkerRuntime runtime;
    volatile WorkerContractClient.Subscription direct;

    @BeforeEach
    void setUp() {
        // The application's own stream consumer would compete for the leases: take it out of the game.
        context.getBean(WorkerStreams.class).stop();
        TenantEnvironmentId tenantEnvironment = Fixtures.tenantEnvironment(context);
        conversation = Fixtures.conversation(context, tenantEnvironment, "dev");
        controlPlane = new WireMockServer(WireMockConfiguration.options().dynamicPort());
        controlPlane.start();
        controlPlane.stubFor(post("/api/v1/worker-gateway/token/mint").willReturn(okJson("{\"token\":\"t\"}")));
        String[] chunks = new String[60];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = "word" + i + " ";
        }
        controlPlane.stubFor(post(urlPathEqualTo("/api/internal/gateway/anthropic/v1/messages"))
                .willReturn(ok().withHeader("Content-Type", "text/event-stream")
                        .withBody(AnthropicStreams.text(chunks))
                        .withChunkedDribbleDelay(60, 3000)));
        // The worker's Secret holds this application's command key for the tenant-environment.
        String commandKey =
                context.getBean(CommandKeys.class).forWorker(tenantEnvironment).format();
        worker = ReferenceWorker.start(
                ReferenceWorkerSettings.fromEnvironment(Map.of(
                        ReferenceWorkerSettings.TENANT,
                        tenantEnvironment.tenant(),
                        ReferenceWorkerSettings.ENV,
                        tenantEnvironment.env(),
                        ReferenceWorkerSettings.GATEWAY_BASE_URL,
                        "http://127.0.0.1:" + controlPlane.port(),
                        ReferenceWorkerSettings.IDENTITY_TOKEN,
                        IDENTITY,
                        ReferenceWorkerSettings.COMMAND_KEY,
                        commandKey,
                        ReferenceWorkerSettings.CONFIG_DIR,
                        configDir.toString())),
                Clock.systemUTC());
        contract = new WorkerContractClient(
                worker.baseUrl(), TestCommandSigning.signer(commandKey, tenantEnvironment, Clock.systemUTC()));
        runtime = id -> new WorkerLocation(id, worker.baseUrl(), WorkerReadiness.READY, "test worker");
        replicaA = replica(runtime, eventLog);
        replicaB = replica(runtime, eventLog);
    }

    @AfterEach
    void tearDown() {
        replicaA.abandon();
        replicaB.abandon();
        worker.stop();
        controlPlane.stop();
    }

    @Test
    void gracefulStopMidTurnHandsTheStreamOverWithNothingLostOrDuplicated() {
        startTurnConsumedByA();

        replicaA.stop();

        assertLogIsExactlyTheWorkersStream();
    }

    @Test
    void aReplicaThatDiesMidTurnLosesItsLeaseAndTheOtherResumes() {
        startTurnConsumedByA();

        replicaA.abandon();

        assertLogIsExactlyTheWorkersStream();
        assertThat(replicaB.consumesLocally(conversation.id())).isTrue();
    }

    @Test
    void anAppendThatFailsMidTurnIsReadAgainAndNothingAfterItIsAppendedFirst() {
        // Replica A's log refuses one append in the middle of the turn, with more events read behind it.
        AtomicInteger appends = new AtomicInteger();
        ConversationEventLog flaky = new ConversationEventLog() {
            @Override
            public List<ConversationEvent> append(UUID conversationId, List<NewConversationEvent> events) {
                if (appends.incrementAndGet() == 8) {
                    // Fail only once the reader has queued more of the turn behind this append.
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> direct.events().size() >= 30);
                    throw new IllegalStateException("database unavailable for a moment");
                }
                return eventLog.append(conversationId, events);
            }

            @Override
            public java.util.Optional<ConversationEvent> lastOfTypes(
                    UUID conversationId, java.util.Collection<String> types) {
                return eventLog.lastOfTypes(conversationId, types);
            }

            @Override
            public List<ConversationEvent> readAfter(UUID conversationId, long afterSeq, int limit) {
                return eventLog.readAfter(conversationId, afterSeq, limit);
            }
        };
        replicaA.abandon();
        replicaA = replica(runtime, flaky);
        replicaA.start();
        assertThat(contract.openSession(conversation.id(), "dev").status()).isEqualTo(201);
        try (var watching = contract.subscribe(conversation.id(), null)) {
            direct = watching;
            replicaA.ensureConsuming(directory.scopeOf(conversation.id()).orElseThrow());
            assertThat(contract.message(conversation.id(), "m1", "Tell me a long story")
                            .status())
                    .isEqualTo(202);

            assertLogIsExactlyTheWorkersStream();
        }
        assertThat(appends).hasValueGreaterThan(8);
        assertThat(replicaA.consumesLocally(conversation.id())).isTrue();
    }

    @Test
    void aReplicaThatHasStoppedClaimsNothingSoAnotherTakesTheStreamAtOnce() {
        assertThat(contract.openSession(conversation.id(), "dev").status()).isEqualTo(201);
        var scope = directory.scopeOf(conversation.id()).orElseThrow();
        replicaA.start();
        replicaA.stop();

        // A delivery that was still finishing on A when it stopped asks for the stream.
        replicaA.ensureConsuming(scope);
        replicaB.start();
        replicaB.ensureConsuming(scope);

        assertThat(replicaA.consumesLocally(conversation.id())).isFalse();
        assertThat(replicaB.consumesLocally(conversation.id())).isTrue();
    }

    private void startTurnConsumedByA() {
        replicaA.start();
        assertThat(contract.openSession(conversation.id(), "dev").status()).isEqualTo(201);
        replicaA.ensureConsuming(directory.scopeOf(conversation.id()).orElseThrow());
        replicaB.start();
        replicaB.ensureConsuming(directory.scopeOf(conversation.id()).orElseThrow());
        assertThat(replicaA.consumesLocally(conversation.id())).isTrue();
        assertThat(replicaB.consumesLocally(conversation.id())).isFalse();
        assertThat(contract.message(conversation.id(), "m1", "Tell me a long story")
                        .status())
                .isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).until(() -> count("text.delta") >= 10);
        assertThat(count("turn.completed")).isZero();
    }

    private void assertLogIsExactlyTheWorkersStream() {
        await().atMost(Duration.ofSeconds(20)).until(() -> count("turn.completed") == 1);
        List<String> workerIds;
        try (var stream = contract.subscribe(conversation.id(), null)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> stream.types().contains("turn.completed"));
            workerIds = stream.events().stream().map(SseEvent::id).toList();
        }
        List<ConversationEvent> log = eventLog.readAfter(conversation.id(), 0, 10_000);
        assertThat(log).extracting(ConversationEvent::sourceEventId).containsExactlyElementsOf(workerIds);
        assertThat(count("text.delta")).isEqualTo(60);
    }

    private long count(String type) {
        return eventLog.readAfter(conversation.id(), 0, 10_000).stream()
                .filter(e -> e.type().equals(type))
                .count();
    }

    private WorkerStreams replica(WorkerRuntime runtime, ConversationEventLog log) {
        return new WorkerStreams(
                leases,
                directory,
                TestWorkerLocators.fixed(runtime, properties),
                client,
                log,
                new TurnEnds(),
                notices,
                properties,
                Clock.systemUTC(),
                new SimpleMeterRegistry(),
                messages,
                traces,
                scheduler);
    }
}
