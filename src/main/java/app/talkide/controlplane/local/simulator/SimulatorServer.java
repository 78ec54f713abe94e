package app.talkide.controlplane.local.simulator;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The simulator's own HTTP server on loopback: the JDK's server, one virtual thread per request, so
 * it is a separate upstream the gateway reaches over a real socket, exactly as it reaches the real API.
 * It accepts only the placeholder key it was started with.
 */
final class SimulatorServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService requests;
    private final SimulatorRouter handler;
    private final String apiKey;
    private final URI baseUrl;

    private SimulatorServer(HttpServer server, ExecutorService requests, SimulatorRouter handler, String apiKey) {
        this.server = server;
        this.requests = requests;
        this.handler = handler;
        this.apiKey = apiKey;
        this.baseUrl = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    static SimulatorServer start(SimulatorProperties properties, Clock clock) {
        String apiKey = "sk-ant-simulator-" + ApiIds.random(32);
        try {
            HttpServer server = HttpServer.create(
                    new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), properties.port()), 0);
            ExecutorService requests = Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("anthropic-simulator-", 0).factory());
            server.setExecutor(requests);
            SimulatorRouter handler =
                    new SimulatorRouter(properties, apiKey, new PromptCache(clock, properties.minCacheableTokens()));
            server.createContext("/", handler);
            server.start();
            return new SimulatorServer(server, requests, handler, apiKey);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "The Anthropic simulator could not listen on 127.0.0.1:" + properties.port(), e);
        }
    }

    URI baseUrl() {
        return baseUrl;
    }

    /** The placeholder key this server accepts, and nothing else. */
    String apiKey() {
        return apiKey;
    }

    /** Requests (streams included) being answered right now. */
    int requestsInFlight() {
        return handler.inFlight();
    }

    @Override
    public void close() {
        server.stop(0);
        // Running streams sleep between deltas: interrupt them rather than let them write into closed sockets.
        requests.shutdownNow();
    }

    @Override
    public String toString() {
        return "SimulatorServer[" + baseUrl + ", apiKey=<redacted>]";
    }
}
