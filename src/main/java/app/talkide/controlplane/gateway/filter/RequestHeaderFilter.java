package app.talkide.controlplane.gateway.filter;

import jakarta.servlet.http.HttpServletRequest;
import java.net.http.HttpRequest;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Decides which of the worker's headers reach the upstream. The caller's credentials (its WorkerToken,
 * any {@code Authorization}, cookie or {@code x-api-key}) never do; neither do hop-by-hop headers (and
 * those the {@code Connection} header names), proxy headers that would tell the upstream about our
 * network, or {@code accept-encoding}: the gateway reads usage from the body, so it asks for it
 * uncompressed. {@code anthropic-version} defaults when absent; {@code anthropic-beta} passes.
 */
public final class RequestHeaderFilter {

    static final Set<String> STRIPPED = Set.of(
            // credentials of the caller, not ours
            "authorization",
            "x-worker-token",
            "cookie",
            "x-api-key",
            // hop-by-hop (RFC 9110 §7.6.1) and what the HTTP client sets itself
            "connection",
            "keep-alive",
            "proxy-authenticate",
            "proxy-authorization",
            "proxy-connection",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "http2-settings",
            "host",
            "content-length",
            "expect",
            // our network is nobody's business upstream
            "forwarded",
            "x-forwarded-for",
            "x-forwarded-host",
            "x-forwarded-proto",
            "x-forwarded-port",
            "x-forwarded-prefix",
            "x-real-ip",
            "via",
            // usage is read from the body, so it must come uncompressed
            "accept-encoding");

    private final String defaultVersion;

    public RequestHeaderFilter(String defaultVersion) {
        this.defaultVersion = defaultVersion;
    }

    public void copy(HttpServletRequest from, HttpRequest.Builder to) {
        Set<String> named = namedByConnection(from);
        boolean version = false;
        boolean contentType = false;
        for (String name : Collections.list(from.getHeaderNames())) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (STRIPPED.contains(lower) || named.contains(lower)) {
                continue;
            }
            version |= lower.equals("anthropic-version");
            contentType |= lower.equals("content-type");
            for (String value : Collections.list(from.getHeaders(name))) {
                try {
                    to.header(name, value);
                } catch (IllegalArgumentException restrictedOrInvalid) {
                    // A header the JDK client refuses to send is one the upstream need not see.
                }
            }
        }
        if (!version) {
            to.header("anthropic-version", defaultVersion);
        }
        if (!contentType) {
            to.header("content-type", "application/json");
        }
    }

    private static Set<String> namedByConnection(HttpServletRequest request) {
        Set<String> named = new HashSet<>();
        for (String value : Collections.list(request.getHeaders("Connection"))) {
            for (String token : value.split(",")) {
                named.add(token.strip().toLowerCase(Locale.ROOT));
            }
        }
        return named;
    }
}
