package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Decides whether local mode runs the Node worker (the production worker, {@code worker/}) for the seeded
 * tenant-environment, and starts it. With {@code talkide.localdev.worker=auto} it runs when Node ≥ 20 and
 * npm are installed and the sources are there; otherwise the Java reference worker runs, and the log says
 * why and how to get the real one.
 */
@Component
class NodeWorkers {

    private static final Logger log = LoggerFactory.getLogger(NodeWorkers.class);
    static final String DESCRIPTION = "Node worker (Claude Agent SDK)";

    private final LocalDevProperties properties;
    private final Path workerDir;
    private volatile Optional<Boolean> decided = Optional.empty();

    NodeWorkers(LocalDevProperties properties) {
        this.properties = properties;
        this.workerDir = (properties.nodeWorkerDir() != null ? properties.nodeWorkerDir() : Path.of("worker"))
                .toAbsolutePath()
                .normalize();
    }

    boolean runsFor(TenantEnvironmentId tenantEnvironment) {
        return tenantEnvironment.tenant().equals(properties.tenant())
                && tenantEnvironment.env().equals(properties.env())
                && enabled();
    }

    private synchronized boolean enabled() {
        if (decided.isPresent()) {
            return decided.get();
        }
        boolean node;
        if (properties.worker().equals("reference")) {
            log.info("Local mode runs the Java reference worker (talkide.localdev.worker=reference)");
            node = false;
        } else {
            Optional<String> missing = Files.isRegularFile(workerDir.resolve("package.json"))
                    ? NodeWorkerProcess.missingRuntime()
                    : Optional.of("the Node worker's sources are not at " + workerDir);
            if (missing.isPresent() && properties.worker().equals("node")) {
                throw new IllegalStateException("talkide.localdev.worker=node, but " + missing.get());
            }
            missing.ifPresent(why -> log.warn(
                    "Local mode runs the Java reference worker (a stand-in with one toy tool): {}. Install Node.js 20+"
                            + " and npm, then restart, to run the real worker (see README).",
                    why));
            node = missing.isEmpty();
            if (node) {
                log.info("Local mode runs the Node worker (Claude Agent SDK) from {}", workerDir);
                if (Files.isDirectory(workerDir.resolve("data"))) {
                    // Where earlier versions put its sessions and working tree by mistake (relative paths).
                    log.warn(
                            "{} is left over from an earlier version and no longer used; delete it",
                            workerDir.resolve("data"));
                }
            }
        }
        decided = Optional.of(node);
        return node;
    }

    /** What Claude Code's Bash sandbox runs on Linux, by command, with the Debian package that has it. */
    private static final Map<String, String> SANDBOX_COMMANDS =
            Map.of("bwrap", "bubblewrap", "socat", "socat", "rg", "ripgrep");

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null
                && Arrays.stream(path.split(File.pathSeparator))
                        .filter(dir -> !dir.isBlank())
                        .anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }

    /** {@code referenceEnv} names only absolute paths: the worker runs in {@code worker/}, not here. */
    LocalWorker start(TenantEnvironmentId tenantEnvironment, Map<String, String> referenceEnv) {
        NodeWorkerProcess.prepare(workerDir);
        Map<String, String> env = new HashMap<>(referenceEnv);
        env.put("TALKIDE_WORKER_HOST", "127.0.0.1");
        env.put("TALKIDE_WORKER_STOP_GRACE", "PT0S");
        if (properties.nodeWorkerMaxEngines() != null) {
            env.put(
                    "TALKIDE_WORKER_MAX_ENGINES",
                    properties.nodeWorkerMaxEngines().toString());
        }
        List<String> sandboxMissing = SANDBOX_COMMANDS.entrySet().stream()
                .filter(command -> !onPath(command.getKey()))
                .map(Map.Entry::getValue)
                .toList();
        if (!sandboxMissing.isEmpty() && System.getenv("TALKIDE_WORKER_SANDBOX") == null) {
            // A laptop without them still gets the whole flow; in a pod Bash always runs sandboxed.
            env.put("TALKIDE_WORKER_SANDBOX", "off");
            log.warn(
                    "Mara's Bash runs unconfined in local mode: {} missing (apt-get install -y {}). In a worker"
                            + " pod it always runs in the sandbox.",
                    String.join(", ", sandboxMissing),
                    String.join(" ", sandboxMissing));
        }
        NodeWorkerProcess process = NodeWorkerProcess.start(workerDir, env, Duration.ofSeconds(60));
        log.info("Node worker for {} listening on {} (pid {})", tenantEnvironment, process.baseUrl(), process.pid());
        return new LocalWorker() {
            @Override
            public URI baseUrl() {
                return process.baseUrl();
            }

            @Override
            public int port() {
                return process.port();
            }

            @Override
            public void stop() {
                process.kill();
            }

            @Override
            public String description() {
                return DESCRIPTION;
            }
        };
    }
}
