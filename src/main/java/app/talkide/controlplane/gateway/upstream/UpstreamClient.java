package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's HTTP call to the upstream. Which implementation serves is {@code
 * talkide.gateway.upstream-client}; every one behaves alike where the gateway depends on it (the same
 * tests hold them to it): the key and the length are the client's alone, nothing a worker sends can split
 * the request, a POST is never sent twice, the response's body is read as it arrives, closing it before its
 * end cancels the call, and a failure says whether the upstream was unreachable (502) or late (504).
 */
public interface UpstreamClient extends AutoCloseable {

    /**
     * POSTs {@code body} to {@code path} (with its raw query) and waits for the response head, at most
     * the response timeout. {@code headers} adds the caller's filtered headers (the client drops any it
     * owns or that are malformed, {@link RequestFields}); the API key is added here.
     */
    UpstreamResponse post(
            AnthropicUpstream target,
            String path,
            @Nullable String query,
            Consumer<BiConsumer<String, String>> headers,
            byte[] body)
            throws UpstreamFailure;

    @Override
    void close();
}
