package app.talkide.controlplane.token.security;

import app.talkide.controlplane.token.WorkerTokenCheck;
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
 * exception (the gateway's paths are served before this chain, with the same {@link WorkerTokenCheck});
 * the mint path authenticates with the identity token inside its controller.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class WorkerApiSecurityConfiguration {

    @Bean
    @Order(1)
    SecurityFilterChain internalApiChain(HttpSecurity http, WorkerTokenCheck check) throws Exception {
        var filter = new WorkerTokenValidationFilter(check);
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
