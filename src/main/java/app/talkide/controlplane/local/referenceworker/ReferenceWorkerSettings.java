package app.talkide.controlplane.local.referenceworker;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.workercontract.CommandKeySet;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * What a worker pod learns from its environment and Secret: who it is, how to verify calls,
 * where the control plane is, and where its sessions live.
 *
 * @param gatewayBaseUrl {@code TALKIDE_GATEWAY_BASE_URL}: the control plane, for minting and the gateway
 * @param identityToken {@code TALKIDE_WORKER_IDENTITY_TOKEN}, from the Secret's {@code identity-token}
 * @param commandKeys {@code TALKIDE_WORKER_COMMAND_KEY}, from the Secret's {@code command-key}
 * @param configDir {@code CLAUDE_CONFIG_DIR}: transcripts and event streams, surviving restarts
 * @param workspaceDir {@code TALKIDE_WORKSPACE_DIR}: the project's working tree (default
 *     {@code $CLAUDE_CONFIG_DIR/workspace}, as the Node worker); this worker's one tool never touches it
 * @param port where to listen on loopback; 0 picks a free port
 * @param model the model every turn asks for
 * @param maxTokens {@code max_tokens} of every model call
 * @param heartbeat how often an idle event stream carries a comment, so proxies and clients see it alive
 */
public record ReferenceWorkerSettings(
        TenantEnvironmentId tenantEnvironment,
        URI gatewayBaseUrl,
        String identityToken,
        CommandKeySet commandKeys,
        Path configDir,
        Path workspaceDir,
        int port,
        String model,
        int maxTokens,
        Duration heartbeat,
        Duration clockSkew) {

    public static final String GATEWAY_BASE_URL = "TALKIDE_GATEWAY_BASE_URL";
    public static final String IDENTITY_TOKEN = "TALKIDE_WORKER_IDENTITY_TOKEN";
    public static final String COMMAND_KEY = "TALKIDE_WORKER_COMMAND_KEY";
    public static final String CONFIG_DIR = "CLAUDE_CONFIG_DIR";
    public static final String WORKSPACE_DIR = "TALKIDE_WORKSPACE_DIR";
    public static final String TENANT = "TALKIDE_TENANT";
    public static final String ENV = "TALKIDE_ENV";
    public static final String PORT = "TALKIDE_WORKER_PORT";
    public static final String MODEL = "TALKIDE_WORKER_MODEL";
    public static final String HEARTBEAT = "TALKIDE_WORKER_HEARTBEAT";

    /** Reads the settings the way the worker pod does: from environment variables. */
    public static ReferenceWorkerSettings fromEnvironment(Map<String, String> env) {
        Path configDir = absolute(CONFIG_DIR, required(env, CONFIG_DIR));
        return new ReferenceWorkerSettings(
                TenantEnvironmentId.of(required(env, TENANT), required(env, ENV)),
                URI.create(required(env, GATEWAY_BASE_URL)),
                required(env, IDENTITY_TOKEN),
                CommandKeySet.parse(required(env, COMMAND_KEY)),
                configDir,
                absolute(
                        WORKSPACE_DIR,
                        env.getOrDefault(
                                WORKSPACE_DIR, configDir.resolve("workspace").toString())),
                Integer.parseInt(env.getOrDefault(PORT, "0")),
                env.getOrDefault(MODEL, "claude-sonnet-4-5"),
                4096,
                Duration.parse(env.getOrDefault(HEARTBEAT, "PT15S")),
                Duration.ofSeconds(30));
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("the worker needs " + name + " in its environment");
        }
        return value.trim();
    }

    /** A pod's paths are absolute; a relative one would depend on where the process happens to run. */
    private static Path absolute(String name, String value) {
        Path path = Path.of(value.trim());
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException(name + " must be an absolute path, not " + value);
        }
        return path;
    }

    public ReferenceWorkerSettings withPort(int newPort) {
        return new ReferenceWorkerSettings(
                tenantEnvironment,
                gatewayBaseUrl,
                identityToken,
                commandKeys,
                configDir,
                workspaceDir,
                newPort,
                model,
                maxTokens,
                heartbeat,
                clockSkew);
    }

    @Override
    public String toString() {
        return "ReferenceWorkerSettings[tenantEnvironment=" + tenantEnvironment + ", gatewayBaseUrl=" + gatewayBaseUrl
                + ", identityToken=<redacted>, commandKeys=" + commandKeys + ", configDir=" + configDir
                + ", workspaceDir=" + workspaceDir
                + ", port=" + port + ", model=" + model + "]";
    }
}
