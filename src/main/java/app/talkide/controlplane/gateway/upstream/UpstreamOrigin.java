package app.talkide.controlplane.gateway.upstream;

import java.net.URI;
import java.util.Locale;

/**
 * Where connections go: scheme, host and port of the upstream's base URL, and the path prefix the API
 * paths are appended to. Connections are pooled per origin.
 */
record UpstreamOrigin(boolean tls, String host, int port, String pathPrefix) {

    static UpstreamOrigin of(URI baseUrl) {
        String scheme = baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("the upstream's base URL must be http or https");
        }
        String host = baseUrl.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("the upstream's base URL has no host");
        }
        boolean tls = scheme.equals("https");
        int port = baseUrl.getPort() >= 0 ? baseUrl.getPort() : tls ? 443 : 80;
        String path = baseUrl.getRawPath() == null ? "" : baseUrl.getRawPath();
        String prefix = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        // URI keeps the brackets of an IPv6 literal in the host; sockets and certificates want it without.
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return new UpstreamOrigin(tls, bare, port, prefix);
    }

    boolean isIpLiteral() {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    }

    /** The request's Host header: the port only when it is not the scheme's own. */
    String hostHeader() {
        String name = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return port == (tls ? 443 : 80) ? name : name + ":" + port;
    }
}
