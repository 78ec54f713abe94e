package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.GatewayProperties.UpstreamClientKind;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/** An upstream client outside the application, with the gateway's default timeouts, for the bench's bare proxy. */
public final class StandaloneUpstreamClient {

    private StandaloneUpstreamClient() {}

    public static UpstreamClient of(UpstreamClientKind kind) throws NoSuchAlgorithmException {
        return UpstreamClients.create(
                kind, Duration.ofSeconds(10), Duration.ofMinutes(10), Duration.ofMinutes(3), SSLContext.getDefault());
    }
}
