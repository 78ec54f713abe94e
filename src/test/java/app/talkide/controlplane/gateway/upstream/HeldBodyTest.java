package app.talkide.controlplane.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.util.unit.DataSize;

/**
 * The gateway starts its upstream call before the budget reservation and holds the body until the
 * reservation is made. Against a raw socket that records every byte: a refused call sends no byte of its
 * body, a released one sends it whole.
 */
class HeldBodyTest {

    private static final String BODY = "{\"model\":\"claude-opus-4-5\",\"max_tokens\":10,\"secret-marker\":1}";

    private RecordingUpstream upstream;
    private UpstreamClient client;

    @BeforeEach
    void setUp() throws IOException {
        upstream = new RecordingUpstream();
        GatewayProperties properties = new GatewayProperties(
                "sk-test",
                URI.create(upstream.baseUrl()),
                "2023-06-01",
                Duration.ofSeconds(5),
                Duration.ofSeconds(20),
                Duration.ofSeconds(20),
                DataSize.ofMegabytes(1),
                4096,
                new GatewayProperties.Pricing(Map.of(), 125, 200, 10));
        var beans = new DefaultListableBeanFactory();
        beans.registerSingleton("upstream", target(upstream.baseUrl()));
        client = new UpstreamClient(properties, beans.getBeanProvider(AnthropicUpstream.class));
    }

    @AfterEach
    void tearDown() throws IOException {
        upstream.close();
    }

    @Test
    void aRefusedCallSendsItsHeadersButNoByteOfItsBody() {
        CompletableFuture<Void> release = new CompletableFuture<>();
        UpstreamClient.PendingCall pending =
                client.start(client.upstream(), "/v1/messages", null, b -> {}, body(), release);

        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.received().contains("\r\n\r\n"));
        release.completeExceptionally(new CancellationException("denied"));
        pending.abandon();

        await().atMost(Duration.ofSeconds(10)).until(upstream::closedByClient);
        String received = upstream.received();
        assertThat(received).startsWith("POST /v1/messages ").contains("x-api-key: sk-test");
        assertThat(received).doesNotContain("secret-marker");
        assertThat(received.substring(received.indexOf("\r\n\r\n") + 4)).isEmpty();
    }

    @Test
    void aReleasedCallSendsItsBodyWholeAndGetsTheAnswer() throws Exception {
        CompletableFuture<Void> release = new CompletableFuture<>();
        UpstreamClient.PendingCall pending =
                client.start(client.upstream(), "/v1/messages", null, b -> {}, body(), release);

        await().atMost(Duration.ofSeconds(10)).until(() -> upstream.received().contains("\r\n\r\n"));
        assertThat(upstream.received()).doesNotContain("secret-marker");
        release.complete(null);
        HttpResponse<InputStream> answer = pending.awaitHeaders();

        assertThat(answer.statusCode()).isEqualTo(200);
        try (InputStream in = answer.body()) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"ok\":true}");
        }
        assertThat(upstream.received()).endsWith(BODY);
    }

    @Test
    void anUnreachableUpstreamIsAFailureThatIsNotATimeout() throws IOException {
        int closedPort;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = gone.getLocalPort();
        }
        UpstreamClient.PendingCall pending = client.start(
                target("http://127.0.0.1:" + closedPort),
                "/v1/messages",
                null,
                b -> {},
                body(),
                new CompletableFuture<>());

        try {
            pending.awaitHeaders();
            throw new AssertionError("expected a failure");
        } catch (UpstreamFailure failure) {
            assertThat(failure.timedOut()).isFalse();
            assertThat(failure.getMessage()).isEqualTo("the upstream is unreachable");
        }
    }

    private static byte[] body() {
        return BODY.getBytes(StandardCharsets.UTF_8);
    }

    private static AnthropicUpstream target(String baseUrl) {
        return new AnthropicUpstream() {
            @Override
            public URI baseUrl() {
                return URI.create(baseUrl);
            }

            @Override
            public String apiKey() {
                return "sk-test";
            }

            @Override
            public String description() {
                return "raw socket";
            }
        };
    }

    /** One connection at a time: records what arrives; answers once a whole body is there. */
    private static final class RecordingUpstream implements AutoCloseable {

        private final ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private final AtomicBoolean closedByClient = new AtomicBoolean();
        private final Thread acceptor = Thread.ofVirtual().start(this::serve);

        RecordingUpstream() throws IOException {}

        String baseUrl() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        synchronized String received() {
            return received.toString(StandardCharsets.UTF_8);
        }

        boolean closedByClient() {
            return closedByClient.get();
        }

        private void serve() {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                byte[] buffer = new byte[4096];
                for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
                    synchronized (this) {
                        received.write(buffer, 0, n);
                    }
                    if (received().endsWith(BODY)) {
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
                                        + "{\"ok\":true}")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                }
                closedByClient.set(true);
            } catch (IOException e) {
                closedByClient.set(true); // a reset is the client closing too
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            acceptor.interrupt();
        }
    }
}
