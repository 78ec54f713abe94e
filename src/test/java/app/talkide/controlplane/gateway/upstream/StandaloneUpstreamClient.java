package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.time.Duration;
import javax.net.ssl.SSLSocketFactory;

/** The gateway's upstream client outside the application, for the bench's bare proxy. */
public final class StandaloneUpstreamClient {

    private StandaloneUpstreamClient() {}

    public static UpstreamClient to(AnthropicUpstream upstream) {
        return new UpstreamClient(Duration.ofSeconds(10), Duration.ofMinutes(10), () -> upstream, (SSLSocketFactory)
                SSLSocketFactory.getDefault());
    }
}
