package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.provisioning.WorkerMcpConfig;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Refuses an MCP server list the worker must not be given, with the field to blame. The engine connects to
 * these servers from inside the pod, outside the Bash sandbox, so a URL is a place the pod itself calls: only
 * https to a public host. Loopback, link-local (cloud metadata), private and carrier-grade address literals,
 * and names that only resolve inside a cluster or a host (no dot, {@code localhost}, {@code *.local},
 * {@code *.internal}, {@code *.svc}, {@code *.svc.*}) are refused, so the list cannot point the worker at the
 * control plane, another tenant's Service or the node. A public name that resolves to a private address is not
 * caught here (no lookups at validation time); the worker's NetworkPolicy, which lets it reach only its
 * {@code egress} allow-list, is what stops that. No credentials in the URL (they would show wherever URLs do):
 * they belong in a header, whose value is never shown again.
 */
final class McpServerRules {

    static final int MAX_SERVERS = 16;
    static final int MAX_HEADERS = 16;
    static final int MAX_URL = 2048;
    static final int MAX_HEADER_VALUE = 4096;
    /** The rendered file; far below a Secret's 1 MiB, and it is re-read by the worker while turns wait. */
    static final int MAX_FILE_BYTES = 64 * 1024;

    /** As the worker accepts them (worker/src/mcp.ts): the tools' prefix {@code mcp__{name}__}. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
    /** The worker's own in-process servers. */
    private static final Set<String> RESERVED_NAMES = Set.of("talkide-issue-tracking", "talkide-builds");

    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");
    /** Visible ASCII, spaces and tabs: no CR/LF (header injection), nothing a proxy would mangle. */
    private static final Pattern HEADER_VALUE = Pattern.compile("[\\x20-\\x7e\\t]+");
    /** Set by the HTTP client itself; a second value would break or smuggle the request. */
    private static final Set<String> FORBIDDEN_HEADERS = Set.of(
            "host",
            "content-length",
            "transfer-encoding",
            "connection",
            "keep-alive",
            "upgrade",
            "te",
            "trailer",
            "proxy-connection");

    private static final Pattern HOST_LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    /** A last label a WHATWG URL parser (the engine's) reads as a number: the host is an IPv4 address. */
    private static final Pattern NUMERIC_LABEL = Pattern.compile("(0x[0-9a-f]*|[0-9]+)");

    static void validate(List<McpServer> servers) {
        if (servers.size() > MAX_SERVERS) {
            throw new InvalidDesiredState("servers", "at most " + MAX_SERVERS + " MCP servers");
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < servers.size(); i++) {
            McpServer server = servers.get(i);
            String field = "servers[" + i + "]";
            if (server == null) {
                throw new InvalidDesiredState(field, "an MCP server must be an object");
            }
            if (server.name() == null || !NAME.matcher(server.name()).matches()) {
                throw new InvalidDesiredState(
                        field + ".name", "name must be 1-63 of a-z, 0-9, '-' and '_', starting with a letter or digit");
            }
            if (RESERVED_NAMES.contains(server.name())) {
                throw new InvalidDesiredState(field + ".name", server.name() + " is the worker's own server");
            }
            if (!names.add(server.name())) {
                throw new InvalidDesiredState(field + ".name", "the name " + server.name() + " is listed twice");
            }
            String transport = server.transport();
            if (transport != null && !transport.equals(McpServer.HTTP) && !transport.equals(McpServer.SSE)) {
                throw new InvalidDesiredState(field + ".transport", "transport must be http or sse");
            }
            url(field + ".url", server.url());
            headers(field + ".headers", server.headersOrNone());
        }
        if (WorkerMcpConfig.render(servers).getBytes(StandardCharsets.UTF_8).length > MAX_FILE_BYTES) {
            throw new InvalidDesiredState("servers", "the MCP server list exceeds " + MAX_FILE_BYTES + " bytes");
        }
    }

    private static void url(String field, @Nullable String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_URL) {
            throw new InvalidDesiredState(field, "url must be an https URL of at most " + MAX_URL + " characters");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new InvalidDesiredState(field, "url is not a valid URL");
        }
        if (!"https".equalsIgnoreCase(uri.getScheme())) {
            throw new InvalidDesiredState(field, "url must use https");
        }
        if (uri.getRawUserInfo() != null
                || (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@"))) {
            throw new InvalidDesiredState(field, "url must not carry credentials; send them in a header");
        }
        if (uri.getHost() == null) {
            throw new InvalidDesiredState(field, "url must name a host");
        }
        if (uri.getRawFragment() != null) {
            throw new InvalidDesiredState(field, "url must not have a fragment");
        }
        String problem = hostProblem(uri.getHost().toLowerCase(Locale.ROOT));
        if (problem != null) {
            throw new InvalidDesiredState(field, problem);
        }
    }

    /** Why the worker must not call this host, or {@code null}. */
    static @Nullable String hostProblem(String host) {
        if (host.startsWith("[")) {
            InetAddress address = literal(host.substring(1, host.length() - 1));
            return address == null ? "url has an invalid IPv6 address" : addressProblem(address);
        }
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        String[] labels = name.split("\\.", -1);
        if (NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches()) {
            // 2130706433, 0x7f.1 and 127.1 are all 127.0.0.1 to the engine: only the canonical form is judged.
            InetAddress address = IPV4.matcher(name).matches() ? literal(name) : null;
            return address == null ? "url must spell an IPv4 address as four decimal parts" : addressProblem(address);
        }
        for (String label : labels) {
            if (!HOST_LABEL.matcher(label).matches()) {
                return "url has an invalid host name";
            }
        }
        if (labels.length < 2
                || name.equals("localhost")
                || name.endsWith(".localhost")
                || name.endsWith(".local")
                || name.endsWith(".internal")
                || name.endsWith(".svc")
                || name.contains(".svc.")) {
            return "url must name a public host, not one inside the cluster or the node (" + name + ")";
        }
        return null;
    }

    private static @Nullable String addressProblem(InetAddress address) {
        byte[] bytes = address.getAddress();
        boolean carrierGrade = bytes.length == 4 && (bytes[0] & 0xff) == 100 && (bytes[1] & 0xc0) == 64;
        boolean uniqueLocal = address instanceof Inet6Address && (bytes[0] & 0xfe) == 0xfc;
        if (address.isLoopbackAddress()
                || address.isLinkLocalAddress()
                || address.isSiteLocalAddress()
                || address.isAnyLocalAddress()
                || address.isMulticastAddress()
                || carrierGrade
                || uniqueLocal) {
            return "url must not point at a loopback, link-local, private or cluster address";
        }
        return null;
    }

    /** Parses an address literal; {@link InetAddress#getByName} never looks a literal up. */
    private static @Nullable InetAddress literal(String text) {
        if (!text.matches("[0-9a-fA-F:.]{2,45}")) {
            return null;
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static void headers(String field, Map<String, String> headers) {
        if (headers.size() > MAX_HEADERS) {
            throw new InvalidDesiredState(field, "at most " + MAX_HEADERS + " headers per server");
        }
        Set<String> seen = new HashSet<>();
        for (Map.Entry<String, String> header : headers.entrySet()) {
            String name = header.getKey();
            if (!HEADER_NAME.matcher(name).matches()) {
                throw new InvalidDesiredState(field, "a header name must be an HTTP token of at most 100 characters");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (FORBIDDEN_HEADERS.contains(lower) || lower.startsWith("proxy-")) {
                throw new InvalidDesiredState(field + "." + name, "the header " + name + " is set by the client");
            }
            if (!seen.add(lower)) {
                throw new InvalidDesiredState(field + "." + name, "the header " + name + " is listed twice");
            }
            // The value is never quoted back: it is usually a credential.
            String value = header.getValue();
            if (value == null
                    || value.length() > MAX_HEADER_VALUE
                    || !HEADER_VALUE.matcher(value).matches()) {
                throw new InvalidDesiredState(
                        field + "." + name,
                        "a header value must be 1-" + MAX_HEADER_VALUE + " visible ASCII characters (no line breaks)");
            }
        }
    }

    private McpServerRules() {}
}
