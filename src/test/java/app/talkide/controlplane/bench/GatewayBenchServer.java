package app.talkide.controlplane.bench;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.Conversation;
import app.talkide.controlplane.support.Fixtures;
import app.talkide.controlplane.token.worker.WorkerTokenIssuer;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The control plane as {@code scripts/bench-gateway.sh} runs it, in a JVM of its own: budgets on the
 * PostgreSQL database it is given, the gateway pointed at the bench's upstream, limits out of the way
 * (the bench measures the path, not the refusals), one user with a conversation and a WorkerToken.
 * Prints {@code READY <port> <token>} once it serves, then runs until killed.
 *
 * <p>Arguments: {@code <jdbc url> <user> <upstream base url>}.
 */
public final class GatewayBenchServer {

    private GatewayBenchServer() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", args[0]);
        properties.put("spring.datasource.username", args[1]);
        properties.put("spring.datasource.password", "");
        properties.put("spring.datasource.hikari.maximum-pool-size", "16");
        properties.put("server.port", "0");
        properties.put(
                "talkide.data-dir", Files.createTempDirectory("talkide-bench-").toString());
        properties.put("talkide.gateway.api-key", "sk-bench-local");
        properties.put("talkide.gateway.upstream-url", args[2]);
        properties.put("talkide.budget.default-limit-micros", Long.toString(Long.MAX_VALUE / 4));
        properties.put("talkide.budget.fair-use.max-concurrent", "100000");
        properties.put("talkide.budget.fair-use.requests-per-minute", "100000000");
        properties.put("talkide.budget.fair-use.tokens-per-hour", Long.toString(Long.MAX_VALUE / 4));
        // One token serves the whole run, warm-up included (minutes, longer than a worker's token lives).
        properties.put("talkide.tokens.worker-token-ttl", "1h");
        properties.put("logging.level.root", "WARN");
        ConfigurableApplicationContext app = new SpringApplicationBuilder(ControlPlaneApplication.class)
                .run(properties.entrySet().stream()
                        .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                        .toArray(String[]::new));
        Conversation conversation = Fixtures.conversation(app, Fixtures.tenantEnvironment(app), "bench-user");
        String token =
                app.getBean(WorkerTokenIssuer.class).issue(conversation.scope()).token();
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        System.out.println("READY " + port + " " + token);
        System.out.flush();
        Thread.currentThread().join();
    }
}
