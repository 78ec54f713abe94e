package app.talkide.controlplane.local.referenceworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.support.WorkerContractClient;
import app.talkide.controlplane.token.command.TestCommandSigning;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * The worker's sessions across a stop: a halted store serves nothing, so a command racing the stop can
 * neither reload a session into the dying process nor mark a message as started that nobody will run.
 */
class SessionStoreTest {

    @TempDir
    Path configDir;

    final UUID conversation = UUID.randomUUID();

    @Test
    void aHaltedStoreRefusesEveryCommandAndWritesNothingMore() {
        SessionStore dying = new SessionStore(configDir, Clock.systemUTC());
        startTurn(dying.open(conversation, "dev").session(), "m1");
        List<ObjectNode> beforeStop =
                SessionFiles.existing(configDir, conversation).readEvents();

        dying.haltAll();

        // What a command that arrived just before the stop would do next: find or open the session.
        assertThatThrownBy(() -> dying.find(conversation)).isInstanceOf(SessionStore.WorkerStopping.class);
        assertThatThrownBy(() -> dying.open(conversation, "dev")).isInstanceOf(SessionStore.WorkerStopping.class);
        assertThatThrownBy(() -> dying.delete(conversation)).isInstanceOf(SessionStore.WorkerStopping.class);
        assertThat(SessionFiles.existing(configDir, conversation).readEvents()).isEqualTo(beforeStop);
    }

    @Test
    void theRestartedWorkerFailsTheInterruptedTurnOnceAndTakesTheNextMessage() {
        SessionStore dying = new SessionStore(configDir, Clock.systemUTC());
        startTurn(dying.open(conversation, "dev").session(), "m1");
        dying.haltAll();

        Session resumed = new SessionStore(configDir, Clock.systemUTC())
                .find(conversation)
                .orElseThrow();

        List<String> types = SessionFiles.existing(configDir, conversation).readEvents().stream()
                .map(event -> event.get("type").asString())
                .toList();
        assertThat(types).containsExactly("session.status", "turn.started", "turn.failed", "session.status");
        assertThat(resumed.accept("m2", new RunningTurn("m2"))).isEqualTo(Session.Acceptance.STARTED);
    }

    @Test
    void aCommandThatReachesAStoppingWorkerIsAnsweredUnavailableSoTheControlPlaneRetries() throws IOException {
        SessionStore dying = new SessionStore(configDir, Clock.systemUTC());
        dying.open(conversation, "dev");
        dying.haltAll();
        ReferenceWorkerSettings settings = ReferenceWorkerSettings.fromEnvironment(Map.of(
                ReferenceWorkerSettings.TENANT, ReferenceWorkerTest.ACME.tenant(),
                ReferenceWorkerSettings.ENV, ReferenceWorkerTest.ACME.env(),
                ReferenceWorkerSettings.GATEWAY_BASE_URL, "http://127.0.0.1:9",
                ReferenceWorkerSettings.IDENTITY_TOKEN, ReferenceWorkerTest.IDENTITY,
                ReferenceWorkerSettings.COMMAND_KEY, TestCommandSigning.workerCommandKey(ReferenceWorkerTest.ACME),
                ReferenceWorkerSettings.CONFIG_DIR, configDir.toString()));
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/sessions",
                new SessionRoutes(
                        dying, null, new CommandAuthentication(settings, Clock.systemUTC()), Duration.ofSeconds(1)));
        server.start();
        try {
            WorkerContractClient client = new WorkerContractClient(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                    TestCommandSigning.signer(
                            TestCommandSigning.workerCommandKey(ReferenceWorkerTest.ACME),
                            ReferenceWorkerTest.ACME,
                            Clock.systemUTC()));

            assertThat(client.openSession(conversation, "dev").status()).isEqualTo(503);
            var message = client.message(conversation, "m1", "hello");
            assertThat(message.status()).isEqualTo(503);
            assertThat(message.body()).contains("worker-stopping");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aTurnStoppedBeforeItsThreadRanIsInterruptedTheMomentItRuns() {
        RunningTurn turn = new RunningTurn("m1");
        turn.abandon();

        turn.runOn(Thread.currentThread());

        assertThat(Thread.interrupted()).isTrue();
    }

    @Test
    void aStartedTurnIsOnDiskTheMomentItIsAcceptedSoAStopRightAfterCannotLoseIt() {
        SessionStore dying = new SessionStore(configDir, Clock.systemUTC());
        Session session = dying.open(conversation, "dev").session();
        assertThat(session.accept("m1", new RunningTurn("m1"))).isEqualTo(Session.Acceptance.STARTED);

        dying.haltAll(); // before the handler could answer or the turn's thread could run

        List<String> types = new SessionStore(configDir, Clock.systemUTC())
                .find(conversation)
                .map(resumed -> SessionFiles.existing(configDir, conversation).readEvents().stream()
                        .map(event -> event.get("type").asString())
                        .toList())
                .orElseThrow();
        assertThat(types).containsExactly("session.status", "turn.started", "turn.failed", "session.status");
    }

    @Test
    void aStoppedSessionAcceptsNothing() {
        SessionStore dying = new SessionStore(configDir, Clock.systemUTC());
        Session session = dying.open(conversation, "dev").session();
        dying.haltAll();

        assertThat(session.accept("m1", new RunningTurn("m1"))).isEqualTo(Session.Acceptance.CLOSED);
        assertThat(SessionFiles.existing(configDir, conversation).readEvents())
                .extracting(event -> event.get("type").asString())
                .containsExactly("session.status");
    }

    private static void startTurn(Session session, String messageId) {
        assertThat(session.accept(messageId, new RunningTurn(messageId))).isEqualTo(Session.Acceptance.STARTED);
    }
}
