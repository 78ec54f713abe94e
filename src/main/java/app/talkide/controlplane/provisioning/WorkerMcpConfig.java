package app.talkide.controlplane.provisioning;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The file the worker reads its operator-listed MCP servers from ({@code TALKIDE_WORKER_MCP_CONFIG}):
 * {@code {"mcpServers": {name: {"type", "url", "headers"}}}}, the Agent SDK's own shape. One renderer for the
 * cluster (a key of the Secret {@link ManagedNames#WORKER_MCP_SECRET}) and local mode (a file beside the
 * embedded worker's Secret), so both give the worker the same bytes for the same list. The output is the same
 * for the same list every time (names in the order set, headers sorted), so a steady state writes nothing.
 */
public final class WorkerMcpConfig {

    /** The key in the Secret, and the file name the worker reads. */
    public static final String FILE_NAME = "mcp-servers.json";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Never log the result: header values are credentials. */
    public static String render(List<McpServer> servers) {
        Map<String, Object> byName = new LinkedHashMap<>();
        for (McpServer server : servers) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("type", server.transportOrDefault());
            entry.put("url", server.url());
            if (!server.headersOrNone().isEmpty()) {
                entry.put("headers", server.headersOrNone());
            }
            byName.put(server.name(), entry);
        }
        return JSON.writeValueAsString(Map.of("mcpServers", byName));
    }

    private WorkerMcpConfig() {}
}
