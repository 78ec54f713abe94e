package app.talkide.controlplane.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties.UpstreamClientKind;
import app.talkide.controlplane.gateway.ScriptedUpstream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every upstream client against an upstream whose every byte the test writes: keep-alive reuse, framing,
 * a connection the upstream closed while idle, cancelling, refusing what a worker must not put in a
 * request, and refusing what a broken upstream sends. The same expectations hold for each.
 */
@ParameterizedClass
@EnumSource(UpstreamClientKind.class)
class UpstreamClientTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final UpstreamClientKind kind;
    private final ScriptedUpstream upstream;
    private final UpstreamClient client;
    private final AnthropicUpstream target;

    UpstreamClientTest(UpstreamClientKind kind) throws Exception {
        this.kind = kind;
        upstream = new ScriptedUpstream();
        target = new Target(URI.create(upstream.baseUrl()), "sk-test-key");
        client = client(kind, Duration.ofSeconds(5));
    }

    static UpstreamClient client(UpstreamClientKind kind, Duration responseTimeout) throws Exception {
        return UpstreamClients.create(
                kind, Duration.ofSeconds(2), responseTimeout, Duration.ofMinutes(3), SSLContext.getDefault());
    }

    @AfterEach
    void close() throws IOException {
        client.close();
        upstream.close();
    }

    @Test
    void callsReadToTheirEndShareConnections() throws Exception {
        for (int i = 0; i < 4; i++) {
            CompletableFuture<UpstreamResponse> answer = post("{\"n\":" + i + "}");
            ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
            assertThat(exchange.body()).isEqualTo("{\"n\":" + i + "}");
            if (i % 2 == 0) {
                exchange.respond(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{\"ok\":" + i
                                + "}");
            } else {
                exchange.startEventStream();
                exchange.send("event: ping\n\n");
                exchange.respond("0\r\n\r\n");
            }
            assertThat(bodyOf(answer.get(10, TimeUnit.SECONDS))).isNotEmpty();
        }
        // Each call sent the moment the one before was read, the connection back in the pool by then
        // (Jetty's through PooledAtEndBody): one connection for all four, however loaded the machine.
        assertThat(upstream.connections()).isEqualTo(1);
    }

    @Test
    void theRequestCarriesTheKeyAndTheLengthOnceAndNothingAWorkerTriedToSmuggle() throws Exception {
        CompletableFuture<UpstreamResponse> answer =
                CompletableFuture.supplyAsync(() -> call(client, "/v1/messages", "beta=true&x=a b", "{}", headers -> {
                    headers.accept("anthropic-version", "2023-06-01");
                    headers.accept("Host", "evil.example");
                    headers.accept("Content-Length", "0");
                    headers.accept("x-api-key", "sk-worker");
                    headers.accept("Transfer-Encoding", "chunked");
                    headers.accept("anthropic-beta", "a\r\nx-injected: 1");
                    headers.accept("bad name", "1");
                }));
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        assertThat(exchange.requestLine()).isEqualTo("POST /v1/messages?beta=true&x=a%20b HTTP/1.1");
        // Field names compared without case, and a client's own User-Agent aside: the rest is exactly this.
        List<String> fields = new ArrayList<>();
        for (String line : exchange.headerLines()) {
            int colon = line.indexOf(':');
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            if (!name.equals("user-agent")) {
                fields.add(name + ": " + line.substring(colon + 1).strip());
            }
        }
        assertThat(fields)
                .containsExactlyInAnyOrder(
                        "host: 127.0.0.1:" + URI.create(upstream.baseUrl()).getPort(),
                        "anthropic-version: 2023-06-01",
                        "x-api-key: sk-test-key",
                        "content-length: 2");
        exchange.respond("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(answer.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(204);
    }

    @Test
    void aConnectionTheUpstreamClosedWhileIdleIsNotUsedAgain() throws Exception {
        CompletableFuture<UpstreamResponse> first = post("{}");
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.respond("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(bodyOf(first.get(10, TimeUnit.SECONDS))).isEqualTo("{}");
        exchange.closeConnection(); // the upstream's keep-alive timeout, while the connection waits in the pool
        // It lies idle a moment, as before any keep-alive timeout: Jetty learns of the close from its
        // selector, not by probing, so a call sent in the same instant could still take the closed connection.
        await().pollDelay(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> true);

        CompletableFuture<UpstreamResponse> second = post("{}");
        upstream.next(WAIT).respond("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n{\"a\"");
        assertThat(bodyOf(second.get(10, TimeUnit.SECONDS))).isEqualTo("{\"a\"");
        assertThat(upstream.connections()).isEqualTo(2);
    }

    @Test
    void connectionCloseAndReadUntilCloseBodiesAreNotReused() throws Exception {
        CompletableFuture<UpstreamResponse> first = post("{}");
        upstream.next(WAIT).respond("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(bodyOf(first.get(10, TimeUnit.SECONDS))).isEqualTo("{}");

        CompletableFuture<UpstreamResponse> second = post("{}");
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.respond("HTTP/1.1 200 OK\r\n\r\nuntil the end");
        exchange.closeConnection();
        assertThat(bodyOf(second.get(10, TimeUnit.SECONDS))).isEqualTo("until the end");

        CompletableFuture<UpstreamResponse> third = post("{}");
        upstream.next(WAIT).respond("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n1");
        assertThat(bodyOf(third.get(10, TimeUnit.SECONDS))).isEqualTo("1");
        // Each call on a connection of its own (Jetty may open one it then does not use).
        assertThat(upstream.connections()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void aChunkedBodyPassesEachChunkAsItArrives() throws Exception {
        CompletableFuture<UpstreamResponse> answer = post("{}");
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.startEventStream();
        exchange.send("event: message_start\ndata: {}\n\n");
        UpstreamResponse response = answer.get(10, TimeUnit.SECONDS);
        assertThat(response.isEventStream()).isTrue();
        byte[] buffer = new byte[4096];
        // The first event is readable while the upstream has sent nothing more.
        int read = response.body().read(buffer);
        assertThat(new String(buffer, 0, read, StandardCharsets.UTF_8)).isEqualTo("event: message_start\ndata: {}\n\n");
        exchange.send("event: message_stop\ndata: {}\n\n");
        exchange.respond("0\r\nx-trailer: dropped\r\n\r\n");
        assertThat(new String(response.body().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("event: message_stop\ndata: {}\n\n");
    }

    @Test
    void closingABodyBeforeItsEndClosesItsConnection() throws Exception {
        CompletableFuture<UpstreamResponse> answer = post("{}");
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.startEventStream();
        exchange.send("event: ping\n\n");
        UpstreamResponse response = answer.get(10, TimeUnit.SECONDS);
        response.body().close();
        assertThat(exchange.closedByPeer(WAIT)).isTrue();
        assertThatThrownBy(() -> response.body().read(new byte[10])).isInstanceOf(IOException.class);
    }

    @Test
    void bothFramingsAtOnceAreReadChunkedAndTheConnectionDroppedOrRefused() throws Exception {
        CompletableFuture<UpstreamResponse> answer = post("{}");
        ScriptedUpstream.Exchange exchange = upstream.next(WAIT);
        exchange.respond(
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        String body;
        try {
            body = bodyOf(answer.get(10, TimeUnit.SECONDS));
        } catch (ExecutionException | IOException refused) {
            body = null; // Jetty refuses such a response outright
        }
        if (kind == UpstreamClientKind.JDK) {
            // The JDK's client trusts Content-Length over Transfer-Encoding (RFC 9112 says the opposite):
            // held here so a change shows, and one reason it is not the gateway's client.
            assertThat(body).isEqualTo("5\r\n");
            return;
        }
        assertThat(body).isIn("hello", null);
        assertThat(exchange.closedByPeer(WAIT)).isTrue();
    }

    @Test
    void aBrokenResponseHeadIsAFailureNotAGuess() throws Exception {
        String[] broken = {
            "HTTP/1.1 2OO OK\r\n\r\n",
            "SSH-2.0-OpenSSH\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            "HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\n\r\n",
            "HTTP/1.1 200 OK\r\nX-Bare: a\rb\r\n\r\n",
            "HTTP/1.1 200 OK\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\n\r\n",
            "HTTP/1.1 101 Switching Protocols\r\n\r\n",
        };
        List<String> accepted = new ArrayList<>();
        for (String head : broken) {
            CompletableFuture<UpstreamResponse> answer = post("{}");
            upstream.next(WAIT).respond(head);
            try {
                answer.get(10, TimeUnit.SECONDS).body().close();
                accepted.add(head.substring(0, Math.min(60, head.length())));
            } catch (ExecutionException refused) {
                assertThat(refused).hasCauseInstanceOf(UpstreamFailure.class);
            }
        }
        // The JDK's client is lax about response heads: held here so a change shows.
        List<String> jdkPasses = List.of(broken[2], broken[3], broken[4], broken[5], broken[6]).stream()
                .map(head -> head.substring(0, Math.min(60, head.length())))
                .toList();
        assertThat(accepted).isEqualTo(kind == UpstreamClientKind.JDK ? jdkPasses : List.of());
    }

    @Test
    void aMalformedChunkFailsTheCallOrTheBodyRead() throws Exception {
        CompletableFuture<UpstreamResponse> answer = post("{}");
        upstream.next(WAIT).respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n");
        // The JDK's client may parse the chunk before it hands back the head, and then fails the call itself.
        assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS).body().readAllBytes())
                .isInstanceOfAny(IOException.class, ExecutionException.class);
    }

    @Test
    void interimResponsesAreSkipped() throws Exception {
        CompletableFuture<UpstreamResponse> answer = post("{}");
        upstream.next(WAIT)
                .respond("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\n"
                        + "Content-Length: 2\r\n\r\n{}");
        UpstreamResponse response = answer.get(10, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("3");
    }

    @Test
    void anUpstreamThatDoesNotAnswerTimesOut() throws Exception {
        UpstreamClient impatient = client(kind, Duration.ofMillis(300));
        try {
            // One answered call first, so the timeout is measured on a warm client and an open connection.
            CompletableFuture<UpstreamResponse> warm =
                    CompletableFuture.supplyAsync(() -> call(impatient, "/v1/messages", null, "{}", headers -> {}));
            upstream.next(WAIT).respond("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
            assertThat(bodyOf(warm.get(10, TimeUnit.SECONDS))).isEqualTo("{}");
            CompletableFuture<UpstreamResponse> answer =
                    CompletableFuture.supplyAsync(() -> call(impatient, "/v1/messages", null, "{}", headers -> {}));
            upstream.next(WAIT); // read, never answered
            assertThat(answer)
                    .failsWithin(WAIT)
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(UpstreamFailure.class)
                    .matches(failure -> ((UpstreamFailure) failure).timedOut());
        } finally {
            impatient.close();
        }
    }

    @Test
    void aClosedPortIsUnreachableNotTimedOut() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        AnthropicUpstream nowhere = new Target(URI.create("http://127.0.0.1:" + port), "sk-test-key");
        assertThatThrownBy(() -> client.post(nowhere, "/v1/messages", null, headers -> {}, new byte[0]))
                .isInstanceOf(UpstreamFailure.class)
                .hasMessage("the upstream is unreachable")
                .matches(failure -> !((UpstreamFailure) failure).timedOut());
    }

    private CompletableFuture<UpstreamResponse> post(String body) {
        return CompletableFuture.supplyAsync(() -> call(client, "/v1/messages", null, body, headers -> {}));
    }

    private UpstreamResponse call(
            UpstreamClient with,
            String path,
            String query,
            String body,
            java.util.function.Consumer<java.util.function.BiConsumer<String, String>> headers) {
        try {
            return with.post(target, path, query, headers, body.getBytes(StandardCharsets.UTF_8));
        } catch (UpstreamFailure failure) {
            throw new java.util.concurrent.CompletionException(failure);
        }
    }

    private static String bodyOf(UpstreamResponse response) throws IOException {
        try (InputStream body = response.body()) {
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    record Target(URI baseUrl, String apiKey) implements AnthropicUpstream {
        @Override
        public String description() {
            return "a scripted upstream";
        }
    }
}
