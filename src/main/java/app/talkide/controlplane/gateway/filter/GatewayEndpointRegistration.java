package app.talkide.controlplane.gateway.filter;

import app.talkide.controlplane.gateway.handler.GatewayPaths;
import app.talkide.controlplane.gateway.handler.GatewayRouter;
import app.talkide.controlplane.token.WorkerTokenCheck;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Puts {@link GatewayEndpoint} on the gateway's prefix only, right after Spring's server observation
 * filter (highest precedence + 1) and before Spring Security's chain, which it never calls.
 */
@Configuration(proxyBeanMethods = false)
class GatewayEndpointRegistration {

    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 2;

    @Bean
    FilterRegistrationBean<GatewayEndpoint> gatewayEndpoint(
            RequestRejectedHandler rejected, WorkerTokenCheck tokens, GatewayRouter router) {
        var registration = new FilterRegistrationBean<>(new GatewayEndpoint(rejected, tokens, router));
        registration.addUrlPatterns(GatewayPaths.PREFIX + "/*");
        registration.setOrder(ORDER);
        return registration;
    }
}
