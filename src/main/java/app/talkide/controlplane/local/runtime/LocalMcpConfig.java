package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.provisioning.McpServerLists;
import app.talkide.controlplane.provisioning.WorkerMcpConfig;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Local mode's counterpart of the Secret {@code talkide-worker-mcp}: the tenant-environment's MCP server list
 * as the file the worker reads ({@code TALKIDE_WORKER_MCP_CONFIG}), in an owner-only directory beside the
 * embedded worker's Secret. Written before the worker starts and again on every desired-state change, by an
 * atomic rename as the kubelet swaps a mounted Secret, so the running worker picks the new list up for the
 * turns that start after it, without a restart.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "local")
class LocalMcpConfig {

    private static final Logger log = LoggerFactory.getLogger(LocalMcpConfig.class);

    private final McpServerLists lists;

    LocalMcpConfig(McpServerLists lists) {
        this.lists = lists;
    }

    /** Writes the current list for the worker; returns the file to name in its environment. */
    Path write(WorkerHome home, TenantEnvironmentId id) {
        Path file = home.mcp().resolve(WorkerMcpConfig.FILE_NAME);
        try {
            Files.createDirectories(home.mcp());
            restrictToOwner(home.mcp(), "rwx------");
            Path temporary = file.resolveSibling(WorkerMcpConfig.FILE_NAME + ".tmp");
            Files.writeString(temporary, WorkerMcpConfig.render(lists.mcpServers(id)), StandardCharsets.UTF_8);
            restrictToOwner(temporary, "rw-------");
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the embedded worker's MCP server list in " + home.mcp(), e);
        }
        return file;
    }

    /** Rewrites the list of a worker that has a home already: one started later writes its list at its start. */
    void rewrite(WorkerHome home, TenantEnvironmentId id) {
        if (Files.isDirectory(home.dir())) {
            write(home, id);
            log.info("Local mode: wrote the MCP server list of {}; its worker uses it from the next turn", id);
        }
    }

    private static void restrictToOwner(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the user profile's ACLs are the closest equivalent.
        }
    }
}
