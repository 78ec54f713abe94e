package app.talkide.controlplane.provisioning;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.List;

/** The MCP servers each tenant-environment's desired state lists, for whoever delivers them to its worker. */
public interface McpServerLists {

    /** As stored, in the order set; empty for a tenant-environment that lists none. */
    List<McpServer> mcpServers(TenantEnvironmentId id);
}
