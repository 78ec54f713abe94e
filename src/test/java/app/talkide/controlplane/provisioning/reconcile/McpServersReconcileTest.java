package app.talkide.controlplane.provisioning.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.McpServer;
import app.talkide.controlplane.provisioning.WorkerMcpConfig;
import app.talkide.controlplane.provisioning.objects.WorkerDeploymentBuilder;
import app.talkide.controlplane.support.DatabaseTest;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP server list on fabric8's CRUD mock API server: a Secret of its own mounted whole into the worker, a
 * changed list patches that Secret alone (the kubelet updates the file; the worker is not rolled), and a steady
 * state writes nothing.
 */
@DatabaseTest
class McpServersReconcileTest extends MockClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void theWorkerMountsItsMcpSecretWholeAndReadsTheFileFromIt() {
        reconciler.reconcile(id);

        assertThat(mcpFile().path("mcpServers").isEmpty()).isTrue();
        PodSpec pod = deployment().getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes())
                .filteredOn(volume -> volume.getSecret() != null
                        && ManagedNames.WORKER_MCP_SECRET.equals(
                                volume.getSecret().getSecretName()))
                .singleElement()
                .satisfies(volume -> {
                    assertThat(volume.getSecret().getDefaultMode()).isEqualTo(0440);
                    assertThat(pod.getContainers().getFirst().getVolumeMounts())
                            .filteredOn(mount -> mount.getName().equals(volume.getName()))
                            .singleElement()
                            .satisfies(mount -> {
                                assertThat(mount.getMountPath()).isEqualTo(WorkerDeploymentBuilder.MCP_DIR);
                                assertThat(mount.getReadOnly()).isTrue();
                                // A subPath mount is never updated by the kubelet: the worker would not see changes.
                                assertThat(mount.getSubPath()).isNull();
                            });
                });
        assertThat(pod.getContainers().getFirst().getEnv())
                .contains(new EnvVar(
                        "TALKIDE_WORKER_MCP_CONFIG",
                        WorkerDeploymentBuilder.MCP_DIR + "/" + WorkerMcpConfig.FILE_NAME,
                        null));
    }

    @Test
    void aChangedListPatchesOnlyItsSecretAndDoesNotRollTheWorker() {
        reconciler.reconcile(id);
        String rolledAt = rolledAt();
        long generation = desiredStates.get(id).generation();
        requests.drain();

        desiredStates.putMcpServers(
                id,
                List.of(new McpServer(
                        "docs", "https://mcp.example.com/mcp", null, Map.of("Authorization", "Bearer s3cret"))));
        var pass = reconciler.reconcile(id);

        assertThat(pass.writes()).isEqualTo(1);
        assertThat(requests.writes())
                .singleElement()
                .satisfies(line -> assertThat(line).startsWith("PATCH ").contains(ManagedNames.WORKER_MCP_SECRET));
        JsonNode docs = mcpFile().path("mcpServers").path("docs");
        assertThat(docs.path("type").asString()).isEqualTo("http");
        assertThat(docs.path("url").asString()).isEqualTo("https://mcp.example.com/mcp");
        assertThat(docs.path("headers").path("Authorization").asString()).isEqualTo("Bearer s3cret");
        assertThat(rolledAt()).isEqualTo(rolledAt);
        assertThat(desiredStates.get(id).generation()).isEqualTo(generation + 1);
        assertThat(desiredStates.get(id).appliedGeneration()).isEqualTo(generation + 1);
        // A change is expected to write; it is not drift.
        assertThat(desiredStates.get(id).driftRepairs()).isZero();

        assertThat(reconciler.reconcile(id).writes()).isZero();
        assertThat(reconciler.reconcile(id).writes()).isZero();

        desiredStates.putMcpServers(id, List.of());
        assertThat(reconciler.reconcile(id).writes()).isEqualTo(1);
        assertThat(mcpFile().path("mcpServers").isEmpty()).isTrue();
    }

    @Test
    void anMcpSecretEditedByHandIsPutBack() {
        desiredStates.putMcpServers(id, List.of(new McpServer("docs", "https://mcp.example.com/mcp", "sse", null)));
        reconciler.reconcile(id);
        client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_MCP_SECRET)
                .edit(secret -> {
                    secret.getData().put(WorkerMcpConfig.FILE_NAME, encode("{\"mcpServers\":{\"evil\":{}}}"));
                    return secret;
                });

        assertThat(reconciler.reconcile(id).writes()).isEqualTo(1);
        assertThat(mcpFile().path("mcpServers").path("docs").path("type").asString())
                .isEqualTo("sse");
        assertThat(mcpFile().path("mcpServers").has("evil")).isFalse();
        assertThat(desiredStates.get(id).driftRepairs()).isEqualTo(1);
    }

    private JsonNode mcpFile() {
        Secret secret = client.secrets()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER_MCP_SECRET)
                .get();
        return JSON.readTree(new String(
                Base64.getDecoder().decode(secret.getData().get(WorkerMcpConfig.FILE_NAME)), StandardCharsets.UTF_8));
    }

    private Deployment deployment() {
        return client.apps()
                .deployments()
                .inNamespace(id.namespace())
                .withName(ManagedNames.WORKER)
                .get();
    }

    private String rolledAt() {
        return deployment()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(ManagedNames.ROLLED_AT_ANNOTATION);
    }

    private static String encode(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
