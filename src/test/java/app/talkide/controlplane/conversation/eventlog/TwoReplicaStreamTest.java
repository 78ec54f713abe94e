package app.talkide.controlplane.conversation.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.support.PostgresOnly;
import app.talkide.controlplane.support.SseClient;
import app.talkide.controlplane.support.TestDatabase;
import app.talkide.controlplane.support.TestHttp;
import app.talkide.controlplane.system.PostgresListener;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.token.TokenTestSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two application instances on one PostgreSQL schema, as two replicas behind one Service. Both append to
 * one conversation at once; a browser on either sees every event exactly once, in sequence order, the
 * other replica's events brought by LISTEN/NOTIFY and read from the table.
 */
@PostgresOnly
class TwoReplicaStreamTest {

    static final String DEV = TestHttp.basic("dev", "dev");
    static final TenantEnvironmentId TENANT = TenantEnvironmentId.of("replicas", "dev");

    @TempDir
    Path dataA;

    @TempDir
    Path dataB;

    ConfigurableApplicationContext a;
    ConfigurableApplicationContext b;
    UUID conversation;
    final List<AutoCloseable> cleanup = new ArrayList<>();

    @BeforeEach
    void startTwoInstances() {
        Map<String, Object> database = TestDatabase.freshSettings();
        a = start(dataA, database);
        cleanup.add(a);
        b = start(dataB, database);
        cleanup.add(b);
        a.getBean(TenantEnvironments.class).register(TENANT);
        a.getBean(Memberships.class).grant(TENANT, "dev");
        conversation =
                a.getBean(Conversations.class).start(TENANT, "dev", "replicas").id();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closeable : cleanup.reversed()) {
            closeable.close();
        }
    }

    @Test
    void aBrowserOnEitherInstanceSeesBothInstancesEventsOnceInOrder() throws Exception {
        SseClient onA = browser(a);
        SseClient onB = browser(b);
        int perInstance = 150;

        try (ExecutorService appenders = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = List.of(
                    appenders.submit(() -> appendEach(a, "a", perInstance)),
                    appenders.submit(() -> appendEach(b, "b", perInstance)));
            for (Future<?> future : running) {
                future.get(30, TimeUnit.SECONDS);
            }
        }

        for (SseClient browser : List.of(onA, onB)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> browser.events().size() >= 2 * perInstance);
            assertThat(browser.ids()).containsExactlyElementsOf(seqs(1, 2 * perInstance));
            assertThat(browser.events())
                    .extracting(SseClient.Event::data)
                    .filteredOn(data -> data.startsWith("a"))
                    .containsExactlyElementsOf(IntStream.range(0, perInstance)
                            .mapToObj(i -> "a" + i)
                            .toList());
        }
    }

    @Test
    void workerEventsAppendedOnBothInstancesAreStoredAndStreamedOnce() throws Exception {
        SseClient onB = browser(b);
        List<NewConversationEvent> workerEvents = IntStream.range(0, 100)
                .mapToObj(i -> new NewConversationEvent("text.delta", "w" + i, "w" + i))
                .toList();

        try (ExecutorService appenders = Executors.newVirtualThreadPerTaskExecutor()) {
            // Two consumers of one worker stream during a failover overlap.
            List<Future<?>> running = List.of(
                    appenders.submit(() -> workerEvents.forEach(e -> log(a).append(conversation, List.of(e)))),
                    appenders.submit(() -> workerEvents.forEach(e -> log(b).append(conversation, List.of(e)))));
            for (Future<?> future : running) {
                future.get(30, TimeUnit.SECONDS);
            }
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> onB.events().size() >= 100);
        assertThat(onB.events())
                .extracting(SseClient.Event::data)
                .containsExactlyElementsOf(
                        workerEvents.stream().map(NewConversationEvent::data).toList());
    }

    @Test
    void afterItsListeningConnectionBrokeAnInstanceCatchesUpOnWhatItMissed() throws Exception {
        SseClient onB = browser(b);
        log(a).append(conversation, List.of(event("before")));
        await().atMost(Duration.ofSeconds(10)).until(() -> onB.events().size() == 1);

        b.getBean("conversationEventListener", PostgresListener.class).breakConnection();
        log(a).append(conversation, List.of(event("while-broken-1"), event("while-broken-2")));

        await().atMost(Duration.ofSeconds(30)).until(() -> onB.events().size() == 3);
        assertThat(onB.events())
                .extracting(SseClient.Event::data)
                .containsExactly("before", "while-broken-1", "while-broken-2");
    }

    private void appendEach(ConfigurableApplicationContext instance, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            log(instance).append(conversation, List.of(event(prefix + i)));
        }
    }

    private static ConversationEventLog log(ConfigurableApplicationContext instance) {
        return instance.getBean(ConversationEventLog.class);
    }

    private static NewConversationEvent event(String data) {
        return new NewConversationEvent("test.event", data, null);
    }

    private SseClient browser(ConfigurableApplicationContext instance) {
        SseClient client = SseClient.connect(
                "http://127.0.0.1:" + port(instance) + "/api/conversations/" + conversation + "/stream",
                "Authorization",
                DEV);
        cleanup.add(client);
        return client;
    }

    private static ConfigurableApplicationContext start(Path dataDir, Map<String, Object> database) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--talkide.data-dir=" + dataDir,
                "--talkide.tokens.keys.master-keys=k1:" + TokenTestSupport.KEY_1,
                "--talkide.tokens.keys.active-kid=k1",
                // Long enough that the appends below land while B is not listening: only the catch-up can bring them.
                "--talkide.conversations.log.listen-reconnect-backoff=2s"));
        database.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new SpringApplicationBuilder(ControlPlaneApplication.class).run(args.toArray(String[]::new));
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private static List<Long> seqs(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
