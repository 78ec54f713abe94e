package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.local.referenceworker.ReferenceWorker;
import app.talkide.controlplane.local.referenceworker.ReferenceWorkerSettings;
import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.system.ControlPlaneProperties;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import app.talkide.controlplane.worker.WorkerRuntime;
import app.talkide.controlplane.workercontract.WorkerSecretKeys;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The {@code local} worker runtime: every registered tenant-environment gets an embedded worker on a
 * loopback port, started on first use and configured exactly as a pod would be (its Secret as files, the
 * gateway base URL, its own {@code CLAUDE_CONFIG_DIR} and {@link WorkingTree}, all absolute, under
 * {@link WorkerHome}). This is local mode's counterpart of provisioning; the Kubernetes runtime lives with
 * provisioning for the same reason this one lives here.
 */
@Component
@ConditionalOnProperty(name = "talkide.worker.runtime", havingValue = "local")
public class LocalWorkerRuntime implements WorkerRuntime, SmartLifecycle {

    static final String MCP_CONFIG = "TALKIDE_WORKER_MCP_CONFIG";

    private final TenantEnvironments tenantEnvironments;
    private final LocalWorkerSecret secrets;
    private final LocalMcpConfig mcp;
    private final LocalDevProperties properties;
    private final Path workerDir;
    private final ApplicationEventPublisher events;
    private final Map<TenantEnvironmentId, LocalWorker> workers = new ConcurrentHashMap<>();
    private final NodeWorkers nodeWorkers;
    /** A restarted worker comes back on its old port, like a pod behind its Service. */
    private final Map<TenantEnvironmentId, Integer> ports = new HashMap<>();
    /** Stopped on purpose: stays down until started again, like a pod that is restarting. */
    private final java.util.Set<TenantEnvironmentId> stopped = ConcurrentHashMap.newKeySet();

    private volatile URI controlPlane;
    private volatile boolean running;

    LocalWorkerRuntime(
            TenantEnvironments tenantEnvironments,
            LocalWorkerSecret secrets,
            LocalMcpConfig mcp,
            LocalDevProperties properties,
            ControlPlaneProperties controlPlaneProperties,
            ApplicationEventPublisher events,
            NodeWorkers nodeWorkers) {
        this.tenantEnvironments = tenantEnvironments;
        this.nodeWorkers = nodeWorkers;
        this.secrets = secrets;
        this.mcp = mcp;
        this.properties = properties;
        this.workerDir = properties.workerDir() != null
                ? properties.workerDir()
                : controlPlaneProperties.dataDir().resolve("workers");
        this.events = events;
    }

    @EventListener
    void onWebServerReady(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() == null) {
            controlPlane = URI.create("http://127.0.0.1:" + event.getWebServer().getPort());
        }
    }

    /** The running worker re-reads the file: a changed MCP server list needs no restart. */
    @EventListener
    void onDesiredStateChanged(DesiredStateChanged changed) {
        mcp.rewrite(WorkerHome.of(workerDir, changed.tenantEnvironment()), changed.tenantEnvironment());
    }

    @Override
    public WorkerLocation locate(TenantEnvironmentId tenantEnvironment) {
        LocalWorker worker = workers.get(tenantEnvironment);
        if (worker != null) {
            return new WorkerLocation(tenantEnvironment, worker.baseUrl(), WorkerReadiness.READY, worker.description());
        }
        if (controlPlane == null || !running) {
            return unavailable(tenantEnvironment, WorkerReadiness.STARTING, "The control plane is still starting.");
        }
        if (stopped.contains(tenantEnvironment)) {
            return unavailable(tenantEnvironment, WorkerReadiness.STARTING, "The worker is restarting.");
        }
        if (tenantEnvironments.find(tenantEnvironment).isEmpty()) {
            return unavailable(tenantEnvironment, WorkerReadiness.UNAVAILABLE, "No such tenant-environment.");
        }
        return start(tenantEnvironment)
                .map(started -> new WorkerLocation(
                        tenantEnvironment, started.baseUrl(), WorkerReadiness.READY, started.description()))
                .orElseGet(() -> unavailable(tenantEnvironment, WorkerReadiness.STARTING, "The worker is stopped."));
    }

    /**
     * Stops the tenant-environment's worker as a crash would (running turns die, streams are cut); it stays
     * down until {@link #start} is called.
     */
    public synchronized void stopWorker(TenantEnvironmentId tenantEnvironment) {
        stopped.add(tenantEnvironment);
        LocalWorker worker = workers.remove(tenantEnvironment);
        if (worker != null) {
            worker.stop();
            events.publishEvent(new WorkerReadinessChanged(
                    tenantEnvironment, WorkerReadiness.STARTING, "The worker is restarting."));
        }
    }

    /** Starts the worker now (on its previous port if it had one); empty if local mode is not serving yet. */
    public synchronized Optional<LocalWorker> start(TenantEnvironmentId tenantEnvironment) {
        LocalWorker existing = workers.get(tenantEnvironment);
        if (existing != null) {
            return Optional.of(existing);
        }
        if (controlPlane == null || !running) {
            return Optional.empty();
        }
        stopped.remove(tenantEnvironment);
        WorkerHome home = WorkerHome.of(workerDir, tenantEnvironment);
        Path secretDir = home.secret();
        secrets.ensure(secretDir, tenantEnvironment);
        WorkingTree.ensure(home);
        Map<String, String> env = new HashMap<>();
        env.put(ReferenceWorkerSettings.TENANT, tenantEnvironment.tenant());
        env.put(ReferenceWorkerSettings.ENV, tenantEnvironment.env());
        env.put(ReferenceWorkerSettings.GATEWAY_BASE_URL, controlPlane.toString());
        env.put(
                ReferenceWorkerSettings.IDENTITY_TOKEN,
                LocalWorkerSecret.read(secretDir, WorkerSecretKeys.IDENTITY_TOKEN));
        env.put(ReferenceWorkerSettings.COMMAND_KEY, LocalWorkerSecret.read(secretDir, WorkerSecretKeys.COMMAND_KEY));
        env.put(ReferenceWorkerSettings.CONFIG_DIR, home.sessions().toString());
        env.put(ReferenceWorkerSettings.WORKSPACE_DIR, home.workingTree().toString());
        env.put(WorkingTree.GIT_CEILING_DIRECTORIES, home.gitCeiling().toString());
        env.put(ReferenceWorkerSettings.PORT, String.valueOf(ports.getOrDefault(tenantEnvironment, 0)));
        env.put(ReferenceWorkerSettings.MODEL, properties.workerModel());
        env.put(ReferenceWorkerSettings.HEARTBEAT, properties.workerHeartbeat().toString());
        // Read by the Node worker; the reference worker has no MCP client.
        env.put(MCP_CONFIG, mcp.write(home, tenantEnvironment).toString());
        LocalWorker worker =
                nodeWorkers.runsFor(tenantEnvironment) ? nodeWorkers.start(tenantEnvironment, env) : reference(env);
        ports.put(tenantEnvironment, worker.port());
        workers.put(tenantEnvironment, worker);
        events.publishEvent(new WorkerReadinessChanged(tenantEnvironment, WorkerReadiness.READY, worker.description()));
        return Optional.of(worker);
    }

    private static LocalWorker reference(Map<String, String> env) {
        // The worker is "another process": it keeps the system clock, not the application's.
        ReferenceWorker worker = ReferenceWorker.start(ReferenceWorkerSettings.fromEnvironment(env), Clock.systemUTC());
        return new LocalWorker() {
            @Override
            public URI baseUrl() {
                return worker.baseUrl();
            }

            @Override
            public int port() {
                return worker.port();
            }

            @Override
            public void stop() {
                worker.stop();
            }

            @Override
            public String description() {
                return "embedded worker";
            }
        };
    }

    private static WorkerLocation unavailable(TenantEnvironmentId id, WorkerReadiness readiness, String detail) {
        return new WorkerLocation(id, URI.create("http://127.0.0.1:0"), readiness, detail);
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        workers.values().forEach(LocalWorker::stop);
        workers.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the streams and deliveries (default phase) have stopped, so they do not see a dying worker. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1;
    }
}
