package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.WorkerMcpConfig;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * Secret {@code talkide-worker-mcp}: the worker's MCP server list as the file it reads
 * ({@link WorkerMcpConfig}), there even when the list is empty so the pod's volume always mounts. A Secret
 * because header values are credentials; one of its own so that a change is picked up by the running worker
 * (the kubelet updates the mounted file) instead of rolling it as a change of the token Secret does. Never log
 * the result.
 */
public final class WorkerMcpSecretBuilder {

    public static Secret build(TenantEnvironmentId id, DesiredState desired) {
        String file = WorkerMcpConfig.render(desired.mcpServers());
        return new SecretBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER_MCP_SECRET))
                .withType("Opaque")
                .withData(Map.of(
                        WorkerMcpConfig.FILE_NAME,
                        Base64.getEncoder().encodeToString(file.getBytes(StandardCharsets.UTF_8))))
                .build();
    }

    private WorkerMcpSecretBuilder() {}
}
