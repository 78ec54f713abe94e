package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.net.ProtocolException;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.ProxyAuthenticationProtocolHandler;
import org.eclipse.jetty.client.RedirectProtocolHandler;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.WWWAuthenticationProtocolHandler;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * Jetty 12's {@link HttpClient} ({@code upstream-client: jetty}), the same library as the server: its
 * HTTP/1.1 parser, connection pool and TLS. The call's virtual thread waits for the head and then reads
 * the body through an {@link InputStreamResponseListener}, which asks the connection for more only as the
 * body is read, so a slow worker slows the upstream instead of filling memory; closing it early aborts
 * the exchange and closes its connection. Jetty never sends a POST twice.
 */
final class JettyUpstreamClient implements UpstreamClient {

    /** Pooled connections idle this long are closed, as with the gateway's other clients. */
    private static final long POOL_IDLE_MILLIS = 30_000;

    private final HttpClient http;
    private final UpstreamTarget targets = new UpstreamTarget();
    private final long responseTimeoutMillis;
    private final long exchangeIdleMillis;

    /**
     * @param bodySilence how long a response body may be silent before Jetty fails the read; the stall
     *     watchdog judges silence first, so this only backs it up
     */
    JettyUpstreamClient(Duration connectTimeout, Duration responseTimeout, Duration bodySilence, SSLContext tls) {
        this.responseTimeoutMillis = Math.max(1, responseTimeout.toMillis());
        // An exchange's idle timeout covers the wait for the head as well: never shorter than the response
        // timeout, so the 504 is ours (the pool's 30 s would otherwise cut a long non-streaming answer).
        this.exchangeIdleMillis = Math.max(responseTimeoutMillis, bodySilence.toMillis()) + 60_000;
        SslContextFactory.Client ssl = new SslContextFactory.Client();
        ssl.setSslContext(tls); // endpoint identification is HTTPS by default
        ClientConnector connector = new QuickAckConnector();
        connector.setSslContextFactory(ssl);
        connector.setConnectTimeout(connectTimeout);
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("gateway-upstream");
        threads.setDaemon(true);
        connector.setExecutor(threads);
        http = new HttpClient(new HttpClientTransportOverHTTP(connector));
        http.setExecutor(threads);
        http.setFollowRedirects(false);
        http.setUserAgentField(null);
        http.setDefaultRequestContentType(null);
        http.setIdleTimeout(POOL_IDLE_MILLIS);
        http.setMaxResponseHeadersSize(64 * 1024); // the API's heads are well under 2 KB
        // Every call of the replica may stream at once (Jetty's default is 64 connections, then a queue).
        http.setMaxConnectionsPerDestination(4096);
        http.setMaxRequestsQueuedPerDestination(4096);
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("the Jetty upstream client did not start", e);
        }
        // Starting installs decoders and protocol handlers, so these go after it. Usage is read from the
        // body, so it must come uncompressed: no Accept-Encoding, no decoding. An upstream's 401 or 407 is
        // the worker's to see as it is (Jetty would fail one without a challenge header), and redirects are
        // never followed; the 1xx handlers stay.
        http.getContentDecoderFactories().clear();
        http.getProtocolHandlers().remove(WWWAuthenticationProtocolHandler.NAME);
        http.getProtocolHandlers().remove(ProxyAuthenticationProtocolHandler.NAME);
        http.getProtocolHandlers().remove(RedirectProtocolHandler.NAME);
    }

    @Override
    public UpstreamResponse post(
            AnthropicUpstream target,
            String path,
            @Nullable String query,
            Consumer<BiConsumer<String, String>> headers,
            byte[] body)
            throws UpstreamFailure {
        Request request = http.newRequest(targets.of(target, path, query))
                .method(HttpMethod.POST)
                .idleTimeout(exchangeIdleMillis, TimeUnit.MILLISECONDS)
                .body(new BytesRequestContent((String) null, body))
                .headers(fields -> {
                    headers.accept((name, value) -> {
                        if (RequestFields.allowed(name, value)) {
                            fields.add(name, value);
                        }
                    });
                    fields.put("x-api-key", target.apiKey());
                });
        // The response timeout runs from the moment the request is out, as with the other clients: Jetty's own
        // bound would also count connecting and waiting for a pooled connection, so a slow connect could
        // pass for a silent upstream (504) instead of failing on the connect timeout (502).
        CompletableFuture<Long> sent = new CompletableFuture<>();
        request.onRequestSuccess(r -> sent.complete(System.nanoTime()))
                .onRequestFailure((r, failure) -> sent.complete(System.nanoTime()))
                .onResponseBegin(r -> sent.complete(System.nanoTime()));
        // Ends after Jetty gave the connection back to its pool (PooledAtEndBody).
        CountDownLatch exchangeEnded = new CountDownLatch(1);
        request.onComplete(result -> exchangeEnded.countDown());
        InputStreamResponseListener listener = new InputStreamResponseListener();
        request.send(listener);
        Response response;
        try {
            long sentAt = sent.get(exchangeIdleMillis, TimeUnit.MILLISECONDS);
            long left = responseTimeoutMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
            response = listener.get(Math.max(1, left), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            request.abort(e);
            throw sent.isDone()
                    ? new UpstreamFailure(
                            "the upstream did not answer within " + Duration.ofMillis(responseTimeoutMillis), true, e)
                    : new UpstreamFailure("the request could not be sent to the upstream", false, e);
        } catch (ExecutionException e) {
            throw UpstreamFailures.of(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            request.abort(e);
            throw new UpstreamFailure("the upstream call was interrupted", false, e);
        }
        if (response.getStatus() < 200) {
            // Jetty skips 100 Continue but hands back any other 1xx as if final; none may end a POST here.
            ProtocolException unasked = new ProtocolException("the upstream answered " + response.getStatus());
            response.abort(unasked);
            throw new UpstreamFailure("the upstream connection failed", false, unasked);
        }
        return new UpstreamResponse(
                response.getStatus(),
                headersOf(response),
                new PooledAtEndBody(listener.getInputStream(), exchangeEnded));
    }

    private static HttpHeaders headersOf(Response response) {
        Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (HttpField field : response.getHeaders()) {
            fields.computeIfAbsent(field.getName(), name -> new ArrayList<>(1)).add(field.getValue());
        }
        return HttpHeaders.of(fields, (name, value) -> true);
    }

    @Override
    public void close() {
        try {
            http.stop();
        } catch (Exception e) {
            // Stopping closes every connection; nothing is left to do if one fails to close.
        }
    }
}
