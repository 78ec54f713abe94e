package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's own HTTP/1.1 client ({@code upstream-client: own}): keep-alive connections of its own
 * ({@link UpstreamConnections}) with blocking I/O on the call's virtual thread, handing back the response
 * as a stream, so the gateway passes each byte on as soon as it arrives. One call per connection at a
 * time: cancelling a call (closing its body) closes just that connection.
 *
 * <p>Why not the JDK's HttpClient: its asynchronous core hands every call to a selector thread and back,
 * and registers each pooled connection with the selector, which was the largest part of the gateway's
 * CPU per call. A POST is never sent twice: a pooled connection is probed before use instead.
 */
final class OwnUpstreamClient implements UpstreamClient {

    private final UpstreamConnections connections;
    private final int responseTimeoutMillis;
    private volatile @Nullable Target last;

    OwnUpstreamClient(Duration connectTimeout, Duration responseTimeout, SSLSocketFactory tls) {
        this.connections = new UpstreamConnections(connectTimeout, tls);
        this.responseTimeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, responseTimeout.toMillis()));
    }

    @Override
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
    public void close() {
        connections.close();
    }

    private record Target(AnthropicUpstream upstream, UpstreamOrigin origin) {}
}
