package app.talkide.controlplane.token.security;

import app.talkide.controlplane.conversation.ConversationDirectory;
import app.talkide.controlplane.token.WorkerTokenRejectionResponder;
import app.talkide.controlplane.token.worker.OwnerStanding;
import app.talkide.controlplane.token.worker.WorkerTokenVerifier;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;

/**
 * Security chains for what workers call. They come before the people chain, take no cookies and keep
 * no sessions. {@code /api/internal/**} requires a valid WorkerToken on every request, without
 * exception; the mint path authenticates with the identity token inside its controller.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class WorkerApiSecurityConfiguration {

    @Bean
    @Order(1)
    SecurityFilterChain internalApiChain(
            HttpSecurity http,
            WorkerTokenVerifier verifier,
            ConversationDirectory conversations,
            OwnerStanding ownerStanding,
            ObjectProvider<WorkerTokenRejectionResponder> responders,
            MeterRegistry meters)
            throws Exception {
        var filter = new WorkerTokenValidationFilter(
                verifier,
                conversations,
                ownerStanding,
                responders.orderedStream().toList(),
                meters);
        http.securityMatcher("/api/internal/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("WORKER"))
                .addFilterBefore(filter, AnonymousAuthenticationFilter.class)
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .csrf(csrf -> csrf.disable())
                .requestCache(cache -> cache.disable())
                .anonymous(anonymous -> anonymous.disable());
        return http.build();
    }

    @Bean
    @Order(2)
    SecurityFilterChain mintChain(HttpSecurity http) throws Exception {
        http.securityMatcher("/api/v1/worker-gateway/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .csrf(csrf -> csrf.disable())
                .requestCache(cache -> cache.disable());
        return http.build();
    }
}
