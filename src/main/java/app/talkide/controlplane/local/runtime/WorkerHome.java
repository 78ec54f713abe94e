package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.file.Path;

/**
 * Where one embedded worker keeps its files: {@code <workers>/<tenant>-<env>/} with its Secret, its sessions
 * ({@code CLAUDE_CONFIG_DIR}) and its working tree. Every path is absolute: the Node worker is a child process
 * in {@code worker/}, and a relative path would land there, inside the TalkIDE checkout.
 *
 * @param dir the worker's own directory
 * @param gitCeiling the directory git never walks up into from anywhere under {@code dir}
 *     ({@code GIT_CEILING_DIRECTORIES}): the one above {@code workers/}, so git run in the working tree or
 *     beside it stops before it reaches a repository the data directory sits in
 */
record WorkerHome(Path dir, Path gitCeiling) {

    /** {@code workersDir} relative to the directory the control plane runs in, as the README says. */
    static WorkerHome of(Path workersDir, TenantEnvironmentId tenantEnvironment) {
        Path workers = workersDir.toAbsolutePath().normalize();
        Path ceiling = workers.getParent() != null ? workers.getParent() : workers;
        return new WorkerHome(workers.resolve(tenantEnvironment.namespace()), ceiling);
    }

    /** The Secret {@code talkide-worker-token} as files. */
    Path secret() {
        return dir.resolve("secret");
    }

    /** The MCP server list ({@code talkide-worker-mcp} in a cluster) as a file; header values are secrets. */
    Path mcp() {
        return dir.resolve("mcp");
    }

    /** {@code CLAUDE_CONFIG_DIR}: sessions and transcripts, surviving restarts. */
    Path sessions() {
        return dir.resolve("claude");
    }

    /** Mara's working directory: a git repository of its own. */
    Path workingTree() {
        return dir.resolve("workspace");
    }
}
