package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.McpServer;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A stored desired state with the reconcile bookkeeping.
 *
 * @param generation raised by every change of the spec
 * @param appliedGeneration the generation the last successful pass brought into the cluster
 * @param lastReconciledAt when a pass last finished for it
 * @param driftRepairs writes made to put back what changed in the cluster on its own
 * @param mcpServers the worker's MCP servers, set through their own endpoint (header values are secrets)
 */
public record DesiredStateRecord(
        DesiredStateSpec spec,
        long generation,
        long appliedGeneration,
        @Nullable Instant lastReconciledAt,
        long driftRepairs,
        List<McpServer> mcpServers) {

    public DesiredStateRecord {
        mcpServers = List.copyOf(mcpServers);
    }

    static DesiredStateRecord unset() {
        return new DesiredStateRecord(DesiredStateSpec.DEFAULTS, 0, 0, null, 0, List.of());
    }
}
