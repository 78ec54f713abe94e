package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The JDK's {@link HttpClient} over HTTP/1.1 ({@code upstream-client: jdk}). Its request timeout runs
 * from the send until the head arrived, connecting included; closing the body early cancels the exchange
 * and closes its connection. It never resends a POST. It is laxer than the others about broken response
 * heads (conflicting lengths, folded or oversized fields pass), which {@code UpstreamClientTest} holds.
 */
final class JdkUpstreamClient implements UpstreamClient {

    private final HttpClient http;
    private final UpstreamTarget targets = new UpstreamTarget();
    private final Duration responseTimeout;

    JdkUpstreamClient(Duration connectTimeout, Duration responseTimeout, SSLContext tls) {
        this.responseTimeout = responseTimeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .sslContext(tls)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    @Override
    public UpstreamResponse post(
            AnthropicUpstream target,
            String path,
            @Nullable String query,
            Consumer<BiConsumer<String, String>> headers,
            byte[] body)
            throws UpstreamFailure {
        HttpRequest.Builder request = HttpRequest.newBuilder(targets.of(target, path, query))
                .timeout(responseTimeout)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.accept((name, value) -> {
            if (RequestFields.allowed(name, value)) {
                request.header(name, value);
            }
        });
        request.header("x-api-key", target.apiKey());
        HttpResponse<InputStream> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException e) {
            throw UpstreamFailures.of(e);
        } catch (HttpTimeoutException e) {
            throw new UpstreamFailure("the upstream did not answer within " + responseTimeout, true, e);
        } catch (IOException e) {
            throw UpstreamFailures.of(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UpstreamFailure("the upstream call was interrupted", false, e);
        }
        if (response.statusCode() < 200) {
            // The JDK hands back a 101 (or any 1xx but 100) as if final; none may end a POST here.
            try {
                response.body().close();
            } catch (IOException ignored) {
                // Closing only cancels the exchange.
            }
            throw new UpstreamFailure(
                    "the upstream connection failed",
                    false,
                    new java.net.ProtocolException("the upstream answered " + response.statusCode()));
        }
        return new UpstreamResponse(response.statusCode(), response.headers(), response.body());
    }

    @Override
    public void close() {
        http.shutdownNow();
    }
}
