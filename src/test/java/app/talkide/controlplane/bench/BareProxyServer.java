package app.talkide.controlplane.bench;

import app.talkide.controlplane.gateway.AnthropicUpstream;
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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.Executors;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The physical baseline of a Java gateway on the control plane's own HTTP stack, for {@code
 * scripts/bench-gateway.sh}: the same Jetty (servlet, virtual threads) and the gateway's own upstream
 * client ({@link UpstreamClient}), and nothing else — no token check, budget, metering, settlement or metrics. It reads the
 * request body, posts it, and copies the answer back, flushing after every read as the gateway does.
 * What the gateway serves against this is the cost of the product; what this serves against the direct
 * upstream is the cost of the HTTP stack. Prints {@code READY <port>}.
 *
 * <p>Arguments: {@code <upstream base url> [jdk]}: with {@code jdk}, the JDK's HttpClient instead, the
 * stack the gateway used before it had a client of its own.
 */
public final class BareProxyServer {

    private BareProxyServer() {}

    public static void main(String[] args) throws Exception {
        String upstream = args[0];
        HttpServlet relay = args.length > 1 && args[1].equals("jdk")
                ? new JdkRelay(
                        HttpClient.newBuilder()
                                .version(HttpClient.Version.HTTP_1_1)
                                .executor(Executors.newVirtualThreadPerTaskExecutor())
                                .build(),
                        upstream)
                : new GatewayClientRelay(StandaloneUpstreamClient.to(new BenchUpstream(URI.create(upstream))));
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

        GatewayClientRelay(UpstreamClient client) {
            this.client = client;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            byte[] body = request.getInputStream().readAllBytes();
            UpstreamResponse answer;
            try {
                answer = client.post(
                        client.upstream(),
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

    private static final class JdkRelay extends HttpServlet {
        private final HttpClient client;
        private final String upstream;

        JdkRelay(HttpClient client, String upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            byte[] body = request.getInputStream().readAllBytes();
            String query = request.getQueryString();
            HttpRequest.Builder call = HttpRequest.newBuilder(
                            URI.create(upstream + request.getRequestURI() + (query == null ? "" : "?" + query)))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .header("content-type", "application/json")
                    .header("anthropic-version", "2023-06-01")
                    .header("x-api-key", "sk-bench-local");
            HttpResponse<InputStream> answer;
            try {
                answer = client.send(call.build(), HttpResponse.BodyHandlers.ofInputStream());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                response.sendError(502);
                return;
            }
            response.setStatus(answer.statusCode());
            answer.headers().firstValue("content-type").ifPresent(response::setContentType);
            copy(answer.body(), response);
        }
    }
}
