package app.talkide.controlplane.system;

import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter.ReferrerPolicy;

/**
 * Response headers that confine the browser console: scripts, styles and connections only from this
 * origin (the console loads nothing from the network and has no inline script or style), no framing,
 * no referrer leaving the site. Spring Security's defaults (nosniff, no caching of API answers) stay.
 */
final class ConsoleSecurityHeaders {

    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none';"
            + " form-action 'self'; frame-ancestors 'none'";

    private ConsoleSecurityHeaders() {}

    static void apply(HttpSecurity http) throws Exception {
        http.headers(headers -> headers.contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                .frameOptions(frame -> frame.deny())
                .referrerPolicy(referrer -> referrer.policy(ReferrerPolicy.SAME_ORIGIN)));
    }
}
