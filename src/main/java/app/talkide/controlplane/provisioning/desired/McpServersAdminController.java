package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin API for a tenant-environment's MCP servers (role ADMIN, enforced by the security chain). Its own
 * resource rather than a field of the desired state: header values are credentials, so they are written here
 * and never read back (every answer shows {@value #REDACTED} in their place), and a {@code PUT} of the desired
 * state cannot wipe them by leaving them out.
 */
@RestController
@RequestMapping("/api/admin/tenant-environments/{tenant}/{env}/mcp-servers")
class McpServersAdminController {

    static final String REDACTED = "<redacted>";

    /** @param servers the whole list; replaces the stored one */
    record McpServerList(@Nullable List<McpServer> servers) {}

    private final DesiredStates desiredStates;

    McpServersAdminController(DesiredStates desiredStates) {
        this.desiredStates = desiredStates;
    }

    @GetMapping
    McpServerList get(@PathVariable String tenant, @PathVariable String env) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        desiredStates.get(id); // 404 for an unknown one
        return redacted(desiredStates.mcpServers(id));
    }

    @PutMapping
    McpServerList put(
            @PathVariable String tenant, @PathVariable String env, @RequestBody @Nullable McpServerList body) {
        if (body == null || body.servers() == null) {
            throw new InvalidDesiredState("servers", "the body must be {\"servers\": [...]} (an empty list for none)");
        }
        return redacted(desiredStates.putMcpServers(TenantEnvironmentId.of(tenant, env), body.servers()));
    }

    private static McpServerList redacted(List<McpServer> servers) {
        return new McpServerList(servers.stream()
                .map(server -> {
                    Map<String, String> headers = new TreeMap<>();
                    server.headersOrNone().keySet().forEach(name -> headers.put(name, REDACTED));
                    return new McpServer(
                            server.name(),
                            server.url(),
                            server.transportOrDefault(),
                            headers.isEmpty() ? null : headers);
                })
                .toList());
    }
}
