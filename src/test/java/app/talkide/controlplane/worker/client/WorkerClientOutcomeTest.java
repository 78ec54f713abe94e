package app.talkide.controlplane.worker.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import app.talkide.controlplane.observability.Traces;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.token.command.CommandTokenSigner;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerProperties;
import app.talkide.controlplane.worker.WorkerReadiness;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** How the client reads a worker's answer to a message: the contract's statuses, 429 busy included. */
class WorkerClientOutcomeTest {

    HttpServer worker;

    @AfterEach
    void stop() {
        worker.stop(0);
    }

    @Test
    void aWorkerWhoseEnginesAreAllBusyAnswers429AndTheMessageIsNotTakenButKept() throws Exception {
        assertThat(outcomeOf(429, "worker-busy")).isEqualTo(MessageOutcome.WORKER_BUSY);
    }

    @Test
    void aRunningTurnIs409AndAnAcceptedMessage202() throws Exception {
        assertThat(outcomeOf(409, "turn-running")).isEqualTo(MessageOutcome.BUSY);
        assertThat(outcomeOf(202, null)).isEqualTo(MessageOutcome.ACCEPTED);
    }

    /** A rollout's old pod still holds the session: told apart from every other failure, so the user is not told "unreachable". */
    @Test
    void aSessionHeldByAnotherPodIsAFailureThatSaysSo() throws Exception {
        assertThat(failureOf(503, "session-held-elsewhere").sessionHeldElsewhere())
                .isTrue();
        assertThat(failureOf(503, "worker-stopping").sessionHeldElsewhere()).isFalse();
        assertThat(failureOf(500, "session-held-elsewhere").sessionHeldElsewhere())
                .isFalse();
    }

    private WorkerCallFailed failureOf(int status, String problem) throws Exception {
        try {
            outcomeOf(status, problem);
        } catch (WorkerCallFailed failed) {
            return failed;
        }
        throw new AssertionError("no failure for " + status);
    }

    private MessageOutcome outcomeOf(int status, String problem) throws Exception {
        if (worker != null) {
            worker.stop(0);
        }
        worker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        worker.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = (problem == null
                            ? "{\"messageId\":\"m\",\"status\":\"accepted\"}"
                            : "{\"type\":\"https://talkide.app/problems/" + problem + "\",\"status\":" + status + "}")
                    .getBytes(StandardCharsets.UTF_8);
            if (status == 429) {
                exchange.getResponseHeaders().add("Retry-After", "2");
            }
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        worker.start();
        CommandTokenSigner signer = mock(CommandTokenSigner.class);
        when(signer.sign(any(), any(), any(), any())).thenReturn("token");
        WorkerProperties properties = new Binder(new MapConfigurationPropertySource(Map.of()))
                .bindOrCreate("talkide.worker", WorkerProperties.class);
        WorkerClient client = new WorkerClient(signer, properties, mock(Traces.class));
        WorkerLocation at = new WorkerLocation(
                new TenantEnvironmentId("acme", "dev"),
                URI.create("http://127.0.0.1:" + worker.getAddress().getPort()),
                WorkerReadiness.READY,
                "ready");
        return client.postMessage(at, UUID.randomUUID(), UUID.randomUUID(), "hello");
    }
}
