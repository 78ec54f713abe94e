package app.talkide.controlplane.system;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

/**
 * The security chain for people: the browser console, the browser API and the admin API. Worker-facing
 * paths have chains of their own (in the token feature) that take precedence.
 *
 * <p>Local mode: form login (and HTTP Basic for scripts) against configured users, a session cookie,
 * and CSRF protection for cookie-authenticated writes. Production: an OAuth2 resource server accepting
 * the identity provider's JWTs, stateless, no cookies.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class PeopleSecurityConfiguration {

    private static final String[] CONSOLE_PAGES = {"/", "/index.html", "/admin", "/admin.html"};

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    SecurityFilterChain peopleChain(HttpSecurity http, ControlPlaneProperties mode, AuthProperties auth)
            throws Exception {
        http.authorizeHttpRequests(requests -> {
            requests.requestMatchers(
                            "/actuator/health/**", "/actuator/health", "/actuator/info", "/actuator/prometheus")
                    .permitAll()
                    .requestMatchers("/actuator/**")
                    .hasRole("ADMIN")
                    .requestMatchers("/api/admin/**")
                    .hasRole("ADMIN")
                    .requestMatchers("/api/**")
                    .authenticated();
            if (mode.isLocal()) {
                // The console's pages send people to sign in first; their scripts and styles stay open.
                requests.requestMatchers(CONSOLE_PAGES).authenticated();
            }
            requests.anyRequest().permitAll();
        });
        http.exceptionHandling(errors -> errors.defaultAuthenticationEntryPointFor(
                        new ProblemAuthenticationEntryPoint(), PathPatternRequestMatcher.pathPattern("/api/**"))
                .defaultAuthenticationEntryPointFor(
                        new ProblemAuthenticationEntryPoint(), PathPatternRequestMatcher.pathPattern("/actuator/**"))
                .defaultAuthenticationEntryPointFor(new LoginUrlAuthenticationEntryPoint("/login"), request -> true)
                .accessDeniedHandler(new ProblemAccessDeniedHandler()));
        ConsoleSecurityHeaders.apply(http);
        if (mode.isLocal()) {
            // The console's own sign-in page (static/login.html, served at GET /login); POST /login signs in.
            http.formLogin(form -> form.loginPage("/login").permitAll());
            http.httpBasic(basic -> basic.authenticationEntryPoint(new ProblemAuthenticationEntryPoint()));
            http.logout(Customizer.withDefaults());
            // Cookie-authenticated browser writes need the CSRF token. Only a request that authenticates itself
            // (HTTP Basic, a script) and brings no session is not riding on ambient browser credentials; any
            // other Authorization header next to a session cookie is ignored by authentication, so the
            // cookie is what authenticates and the token is required.
            http.csrf(csrf -> csrf.csrfTokenRepository(CookieCsrfTokenRepository.withHttpOnlyFalse())
                    .csrfTokenRequestHandler(new CsrfTokenRequestAttributeHandler())
                    .ignoringRequestMatchers(PeopleSecurityConfiguration::basicWithoutSession));
            // The console is static HTML: nothing renders the token, so load it on every request and the
            // repository sets the XSRF-TOKEN cookie the console's scripts echo as X-XSRF-TOKEN.
            http.addFilterAfter(new CsrfCookieFilter(), CsrfFilter.class);
        } else {
            http.oauth2ResourceServer(
                    resource -> resource.jwt(jwt -> jwt.jwtAuthenticationConverter(new PeopleJwtConverter(auth.jwt())))
                            .authenticationEntryPoint(new ProblemAuthenticationEntryPoint()));
            http.sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
            http.csrf(csrf -> csrf.disable());
        }
        return http.build();
    }

    private static boolean basicWithoutSession(HttpServletRequest request) {
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        return authorization != null
                && authorization.regionMatches(true, 0, "Basic ", 0, 6)
                && request.getRequestedSessionId() == null;
    }

    @Bean
    PasswordEncoder passwordEncoder() {
        return PasswordEncoderFactories.createDelegatingPasswordEncoder();
    }

    @Bean
    UserDetailsService localUsers(AuthProperties auth) {
        InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
        for (AuthProperties.LocalUser user : auth.localUsers()) {
            users.createUser(User.withUsername(user.username())
                    .password(user.passwordHash())
                    .roles(user.roles().toArray(String[]::new))
                    .build());
        }
        return users;
    }
}
