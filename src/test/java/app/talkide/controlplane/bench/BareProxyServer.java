package app.talkide.controlplane.bench;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import app.talkide.controlplane.gateway.GatewayProperties.UpstreamClientKind;
import app.talkide.controlplane.gateway.upstream.StandaloneUpstreamClient;
import app.talkide.controlplane.gateway.upstream.UpstreamClient;
import app.talkide.controlplane.gateway.upstream.UpstreamFailure;
import app.talkide.controlplane.gateway.upstream.UpstreamResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.Executors;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The physical baseline of a Java gateway on the control plane's own HTTP stack, for {@code
 * scripts/bench-gateway.sh}: the same Jetty (servlet, virtual threads) and one of the gateway's upstream
 * clients ({@link UpstreamClient}), and nothing else — no token check, budget, metering, settlement or
 * metrics. It reads the request body, posts it, and copies the answer back, flushing after every read as
 * the gateway does. What the gateway serves against this is the cost of the product; what this serves
 * against the direct upstream is the cost of the HTTP stack. Prints {@code READY <port>}.
 *
 * <p>Arguments: {@code <upstream base url> [own|jetty|jdk]} (the upstream client, default {@code own}).
 */
public final class BareProxyServer {

    private BareProxyServer() {}

    public static void main(String[] args) throws Exception {
        String upstream = args[0];
        UpstreamClientKind kind = args.length > 1
                ? UpstreamClientKind.valueOf(args[1].toUpperCase(Locale.ROOT))
                : UpstreamClientKind.JETTY;
        HttpServlet relay =
                new GatewayClientRelay(StandaloneUpstreamClient.of(kind), new BenchUpstream(URI.create(upstream)));
        QueuedThreadPool threads = new QueuedThreadPool(4096);
        threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(relay), "/*");
        server.setHandler(context);
        server.start();
        System.out.println("READY " + connector.getLocalPort());
        System.out.flush();
        server.join();
    }

    private static void copy(InputStream from, HttpServletResponse response) throws IOException {
        byte[] buffer = new byte[8192];
        try (InputStream in = from) {
            OutputStream out = response.getOutputStream();
            for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
    }

    private record BenchUpstream(URI baseUrl) implements AnthropicUpstream {
        @Override
        public String apiKey() {
            return "sk-bench-local";
        }

        @Override
        public String description() {
            return "the bench's stand-in";
        }
    }

    private static final class GatewayClientRelay extends HttpServlet {
        private final UpstreamClient client;
        private final AnthropicUpstream upstream;

        GatewayClientRelay(UpstreamClient client, AnthropicUpstream upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            byte[] body = request.getInputStream().readAllBytes();
            UpstreamResponse answer;
            try {
                answer = client.post(
                        upstream,
                        request.getRequestURI(),
                        request.getQueryString(),
                        headers -> {
                            headers.accept("content-type", "application/json");
                            headers.accept("anthropic-version", "2023-06-01");
                        },
                        body);
            } catch (UpstreamFailure e) {
                response.sendError(502);
                return;
            }
            response.setStatus(answer.statusCode());
            answer.headers().firstValue("content-type").ifPresent(response::setContentType);
            copy(answer.body(), response);
        }
    }
}
