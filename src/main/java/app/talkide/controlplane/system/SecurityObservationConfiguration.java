package app.talkide.controlplane.system;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.observation.SecurityObservationSettings;

/**
 * Spring Security observes, by default, every filter of every chain and every authorization decision:
 * an observation (and its timers) per filter per request. On the gateway that was a large share of the
 * CPU spent before the controller, on every call, for metrics nobody reads; requests stay timed as a
 * whole ({@code http.server.requests}). Authentications (people logging in) are still observed.
 */
@Configuration(proxyBeanMethods = false)
class SecurityObservationConfiguration {

    @Bean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.withDefaults()
                .shouldObserveRequests(false)
                .shouldObserveAuthorizations(false)
                .build();
    }
}
