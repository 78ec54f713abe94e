package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Quota;
import app.talkide.controlplane.provisioning.ProvisioningProperties.Resources;
import app.talkide.controlplane.provisioning.WorkerPod;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a tenant-environment's objects should look like, every field resolved (its own setting, else the
 * configured default). The builders turn it into Kubernetes objects.
 *
 * @param workerImage the worker container image
 * @param resources the worker container's requests and limits
 * @param storageClass the session volume's storage class; {@code null} means the cluster's default
 * @param storageSize the session volume's size
 * @param quota the namespace's ResourceQuota
 * @param extraLabels labels added to every object, besides the managed ones
 * @param egress where the worker may connect besides DNS and the control plane
 * @param pod the worker pod's placement, sandbox, local disk and probe timeout
 * @param mcpServers the worker's MCP servers; never serialized with the rest (header values are secrets)
 */
public record DesiredState(
        String workerImage,
        Resources resources,
        @Nullable String storageClass,
        String storageSize,
        Quota quota,
        Map<String, String> extraLabels,
        List<EgressRule> egress,
        WorkerPod pod,
        @JsonIgnore List<McpServer> mcpServers) {

    public DesiredState {
        extraLabels = Map.copyOf(extraLabels);
        egress = List.copyOf(egress);
        mcpServers = List.copyOf(mcpServers);
    }

    /** This state with the worker's MCP servers (stored apart from the spec, see {@code DesiredStateRecord}). */
    public DesiredState withMcpServers(List<McpServer> servers) {
        return new DesiredState(
                workerImage, resources, storageClass, storageSize, quota, extraLabels, egress, pod, servers);
    }
}
