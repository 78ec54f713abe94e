package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.util.function.SingletonSupplier;

/**
 * Calls the active {@link AnthropicUpstream} with the JDK HTTP client and hands back the response as a
 * stream, so the gateway can pass each byte on as soon as it arrives. HTTP/1.1 keeps one call per
 * connection: cancelling a call (closing its body) closes just that connection.
 */
@Component
public class UpstreamClient {

    private final HttpClient http;
    // Resolved on first use, then kept: which upstream exists is settled at startup, and a bean
    // factory look-up on every call was about 2 % of the gateway's CPU in its profile.
    private final SingletonSupplier<AnthropicUpstream> upstream;
    private final GatewayProperties properties;

    UpstreamClient(GatewayProperties properties, ObjectProvider<AnthropicUpstream> upstream) {
        this.properties = properties;
        this.upstream = SingletonSupplier.of(upstream::getIfAvailable);
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(properties.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    /** The active upstream, or null when none is configured (neither a key nor the simulator). */
    public @Nullable AnthropicUpstream upstream() {
        return upstream.get();
    }

    /**
     * POSTs {@code body} to {@code path} (with its raw query) and waits for the response headers.
     * {@code headers} adds the caller's filtered headers; the API key is added here.
     */
    public HttpResponse<InputStream> post(
            AnthropicUpstream target,
            String path,
            @Nullable String query,
            Consumer<HttpRequest.Builder> headers,
            byte[] body)
            throws UpstreamFailure {
        URI uri = URI.create(target.baseUrl() + path + (query == null ? "" : "?" + query));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(properties.responseTimeout())
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.accept(request);
        request.setHeader("x-api-key", target.apiKey());
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException e) {
            throw new UpstreamFailure("connecting to the upstream timed out", false, e);
        } catch (HttpTimeoutException e) {
            throw new UpstreamFailure("the upstream did not answer within " + properties.responseTimeout(), true, e);
        } catch (ConnectException e) {
            throw new UpstreamFailure("the upstream is unreachable", false, e);
        } catch (IOException e) {
            throw new UpstreamFailure("the upstream connection failed", false, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UpstreamFailure("interrupted while waiting for the upstream", false, e);
        }
    }
}
