package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.GatewayProperties;
import app.talkide.controlplane.gateway.GatewayProperties.UpstreamClientKind;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The upstream client that {@code talkide.gateway.upstream-client} names. */
@Configuration(proxyBeanMethods = false)
public class UpstreamClients {

    @Bean
    UpstreamClient upstreamClient(GatewayProperties properties) throws NoSuchAlgorithmException {
        return create(
                properties.upstreamClient(),
                properties.connectTimeout(),
                properties.responseTimeout(),
                properties.streamIdleTimeout(),
                SSLContext.getDefault());
    }

    /**
     * @param bodySilence the longest a response body may be silent (the stall watchdog's bound)
     * @param tls trust and protocols for https upstreams
     */
    public static UpstreamClient create(
            UpstreamClientKind kind,
            Duration connectTimeout,
            Duration responseTimeout,
            Duration bodySilence,
            SSLContext tls) {
        return switch (kind) {
            case JETTY -> new JettyUpstreamClient(connectTimeout, responseTimeout, bodySilence, tls);
            case JDK -> new JdkUpstreamClient(connectTimeout, responseTimeout, tls);
        };
    }
}
