package app.talkide.controlplane.local.referenceworker;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running reference worker: the contract's HTTP server on a loopback port, its local gateway proxy and
 * its sessions. {@link #stop()} behaves like a killed pod (nothing more is written); a new worker started
 * on the same config directory picks every session up from disk.
 */
public final class ReferenceWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReferenceWorker.class);

    private final ReferenceWorkerSettings settings;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final GatewayProxyServer proxy;
    private final SessionStore sessions;
    private volatile boolean ready;

    private ReferenceWorker(ReferenceWorkerSettings settings, Clock clock) throws IOException {
        this.settings = settings;
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .executor(executor)
                .build();
        this.sessions = new SessionStore(settings.configDir(), clock);
        this.proxy = new GatewayProxyServer(
                http,
                settings.gatewayBaseUrl(),
                new WorkerTokenMinter(http, settings.gatewayBaseUrl(), settings.identityToken()));
        TurnRunner turns =
                new TurnRunner(http, proxy, new CurrentTimeTool(clock), settings.model(), settings.maxTokens());
        CommandAuthentication authentication = new CommandAuthentication(settings, clock);
        SessionRoutes routes = new SessionRoutes(sessions, turns, authentication, settings.heartbeat());
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), settings.port()), 0);
        server.setExecutor(executor);
        server.createContext("/healthz", exchange -> HttpExchanges.json(exchange, 200, status("ok")));
        server.createContext("/readyz", exchange -> {
            if (ready) {
                HttpExchanges.json(exchange, 200, status("ready"));
            } else {
                HttpExchanges.json(exchange, 503, status("starting"));
            }
        });
        server.createContext("/sessions", routes);
        server.createContext(
                "/", exchange -> HttpExchanges.problem(exchange, 404, "not-found", "Not found", "No such path."));
        server.start();
        ready = true;
        log.info(
                "Reference worker for {} listening on {} (sessions in {}, working tree {})",
                settings.tenantEnvironment(),
                baseUrl(),
                settings.configDir(),
                settings.workspaceDir());
    }

    /** Starts a worker; it listens until {@link #stop()}. */
    public static ReferenceWorker start(ReferenceWorkerSettings settings, Clock clock) {
        try {
            return new ReferenceWorker(settings, clock);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "the reference worker for " + settings.tenantEnvironment() + " cannot listen", e);
        }
    }

    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public ReferenceWorkerSettings settings() {
        return settings;
    }

    /** Stops at once, like a killed pod: running turns are abandoned and open streams are cut. */
    public void stop() {
        ready = false;
        sessions.haltAll();
        server.stop(0);
        proxy.close();
        executor.shutdownNow();
        log.info("Reference worker for {} stopped", settings.tenantEnvironment());
    }

    @Override
    public void close() {
        stop();
    }

    private static tools.jackson.databind.node.ObjectNode status(String status) {
        return HttpExchanges.JSON.createObjectNode().put("status", status);
    }
}
