package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.springframework.util.function.SingletonSupplier;

/**
 * Calls the active {@link AnthropicUpstream} over HTTP/1.1 keep-alive connections of its own
 * ({@link UpstreamConnections}) with blocking I/O on the call's virtual thread, and hands back the
 * response as a stream, so the gateway passes each byte on as soon as it arrives. One call per
 * connection at a time: cancelling a call (closing its body) closes just that connection.
 *
 * <p>Why not the JDK's HttpClient: its asynchronous core hands every call to a selector thread and back,
 * and registers each pooled connection with the selector, which was the largest part of the gateway's
 * CPU per call. A POST is never sent twice: a pooled connection is probed before use instead.
 */
@Component
public class UpstreamClient implements DisposableBean {

    // Resolved on first use, then kept: which upstream exists is settled at startup, and a bean
    // factory look-up on every call was about 2 % of the gateway's CPU in its profile.
    private final Supplier<@Nullable AnthropicUpstream> upstream;
    private final UpstreamConnections connections;
    private final int responseTimeoutMillis;
    private volatile @Nullable Target last;

    @Autowired
    UpstreamClient(GatewayProperties properties, ObjectProvider<AnthropicUpstream> upstream)
            throws NoSuchAlgorithmException {
        this(
                properties.connectTimeout(),
                properties.responseTimeout(),
                SingletonSupplier.of(upstream::getIfAvailable),
                SSLContext.getDefault().getSocketFactory());
    }

    UpstreamClient(
            Duration connectTimeout,
            Duration responseTimeout,
            Supplier<@Nullable AnthropicUpstream> upstream,
            SSLSocketFactory tls) {
        this.upstream = upstream;
        this.connections = new UpstreamConnections(connectTimeout, tls);
        this.responseTimeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, responseTimeout.toMillis()));
    }

    /** The active upstream, or null when none is configured (neither a key nor the simulator). */
    public @Nullable AnthropicUpstream upstream() {
        return upstream.get();
    }

    /**
     * POSTs {@code body} to {@code path} (with its raw query) and waits for the response head, at most
     * the response timeout per read of it. {@code headers} adds the caller's filtered headers (the
     * client drops any it owns or that are malformed); the API key is added here.
     */
    public UpstreamResponse post(
            AnthropicUpstream target,
            String path,
            @Nullable String query,
            Consumer<BiConsumer<String, String>> headers,
            byte[] body)
            throws UpstreamFailure {
        UpstreamOrigin origin = originOf(target);
        RequestHead head = new RequestHead(origin, path, query);
        headers.accept(head::header);
        byte[] headBytes = head.finish(target.apiKey(), body.length);
        UpstreamConnection connection;
        try {
            connection = connections.take(origin);
        } catch (SocketTimeoutException e) {
            throw new UpstreamFailure("connecting to the upstream timed out", false, e);
        } catch (ConnectException | UnknownHostException e) {
            throw new UpstreamFailure("the upstream is unreachable", false, e);
        } catch (IOException e) {
            throw new UpstreamFailure("the upstream connection failed", false, e);
        }
        try {
            connection.send(headBytes, body);
            connection.readTimeout(responseTimeoutMillis);
            ResponseHead answer = ResponseHead.read(connection);
            connection.readTimeout(0); // a body's silence is the stall watchdog's to judge
            return new UpstreamResponse(
                    answer.status(), answer.headers(), ResponseBody.of(answer, connection, connections));
        } catch (SocketTimeoutException e) {
            connection.close();
            throw new UpstreamFailure(
                    "the upstream did not answer within " + Duration.ofMillis(responseTimeoutMillis), true, e);
        } catch (IOException e) {
            connection.close();
            throw new UpstreamFailure("the upstream connection failed", false, e);
        }
    }

    private UpstreamOrigin originOf(AnthropicUpstream target) {
        Target known = last;
        if (known == null || known.upstream != target) {
            known = new Target(target, UpstreamOrigin.of(target.baseUrl()));
            last = known;
        }
        return known.origin;
    }

    @Override
    public void destroy() {
        connections.close();
    }

    private record Target(AnthropicUpstream upstream, UpstreamOrigin origin) {}
}
