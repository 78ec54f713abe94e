package app.talkide.controlplane.provisioning;

import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One remote MCP server a tenant-environment's worker offers Mara (as tools {@code mcp__{name}__…}): reached
 * over https by the engine itself, with the listed request headers (often a credential, so {@link #toString()}
 * never shows their values).
 *
 * @param name unique within the tenant-environment; the tools' prefix
 * @param url the server's https endpoint
 * @param transport {@code http} (streamable HTTP, the default) or {@code sse}
 * @param headers request headers sent with every call to the server; {@code null} means none
 */
public record McpServer(
        String name,
        String url,
        @Nullable String transport,
        @Nullable Map<String, String> headers) {

    public static final String HTTP = "http";
    public static final String SSE = "sse";

    public McpServer {
        headers = headers == null ? null : java.util.Collections.unmodifiableMap(new TreeMap<>(headers));
    }

    public String transportOrDefault() {
        return transport == null ? HTTP : transport;
    }

    public Map<String, String> headersOrNone() {
        return headers == null ? Map.of() : headers;
    }

    @Override
    public String toString() {
        return "McpServer[name=" + name + ", url=" + url + ", transport=" + transportOrDefault() + ", headers="
                + headersOrNone().keySet() + " <values redacted>]";
    }
}
