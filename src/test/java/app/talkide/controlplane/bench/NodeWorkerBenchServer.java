package app.talkide.controlplane.bench;

import app.talkide.controlplane.ControlPlaneApplication;
import jakarta.servlet.Filter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The application as packaged (local mode: the Node worker as its child process, the built-in simulator
 * as the model), plus what {@link NodeWorkerTurns} needs to read, registered here and never
 * component-scanned: when each model call reached the gateway, per conversation (stamped before anything
 * else runs on the request, filed once the WorkerToken says whose call it is), and the resident memory of
 * the worker process and of its engines, read from {@code /proc}.
 */
public final class NodeWorkerBenchServer {

    private static final String GATEWAY_MESSAGES = "/api/internal/gateway/anthropic/v1/messages";
    private static final Pattern RSS_KB = Pattern.compile("VmRSS:\\s+(\\d+)");

    /** Per conversation, each model call's arrival and end (its response complete), epoch microseconds. */
    private static final Map<UUID, List<long[]>> modelCalls = new ConcurrentHashMap<>();

    public static void main(String[] args) {
        new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers((GenericApplicationContext context) -> {
                    context.registerBean("benchArrival", FilterRegistrationBean.class, () -> stamp());
                    context.registerBean("benchRoutes", RouterFunction.class, NodeWorkerBenchServer::routes);
                })
                .run(args);
    }

    /**
     * First of all filters: the gateway now answers from its own filter outside the Spring Security chain
     * (docs/security.md), so a later filter would never see the call. The conversation is read from the
     * WorkerToken's {@code cid} claim (the gateway verifies the token; a bench server trusts its own worker).
     */
    private static FilterRegistrationBean<Filter> stamp() {
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
            long arrived = micros();
            UUID conversation =
                    conversationOf(((jakarta.servlet.http.HttpServletRequest) request).getHeader("X-Worker-Token"));
            long[] call = null;
            if (conversation != null) {
                call = new long[] {arrived, 0};
                modelCalls
                        .computeIfAbsent(conversation, id -> new CopyOnWriteArrayList<>())
                        .add(call);
            }
            chain.doFilter(request, response);
            if (call != null) {
                call[1] = micros(); // the gateway streams synchronously: here its answer is complete
            }
        });
        registration.addUrlPatterns(GATEWAY_MESSAGES);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    private static final Pattern CID = Pattern.compile("\"cid\"\\s*:\\s*\"([0-9a-fA-F-]{36})\"");

    /** The {@code cid} claim of a WorkerToken (not verified: the gateway does that). */
    static @org.jspecify.annotations.Nullable UUID conversationOf(@org.jspecify.annotations.Nullable String token) {
        if (token == null || token.split("\\.").length != 3) {
            return null;
        }
        try {
            String claims = new String(
                    java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]),
                    java.nio.charset.StandardCharsets.UTF_8);
            Matcher cid = CID.matcher(claims);
            return cid.find() ? UUID.fromString(cid.group(1)) : null;
        } catch (IllegalArgumentException malformed) {
            return null;
        }
    }

    private static RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET(
                        "/api/bench/model-calls/{id}",
                        request -> ServerResponse.ok()
                                .body(
                                        modelCalls
                                                .getOrDefault(UUID.fromString(request.pathVariable("id")), List.of())
                                                .stream()
                                                .map(call -> call[0] + ":" + call[1])
                                                .collect(Collectors.joining(","))))
                .GET("/api/bench/worker-memory", request -> ServerResponse.ok().body(workerMemory()))
                .build();
    }

    /** "worker KB, worker and its descendants KB, descendants": the Node worker is this JVM's child. */
    private static String workerMemory() {
        ProcessHandle worker = ProcessHandle.current()
                .children()
                .filter(p -> p.info().commandLine().orElse("").contains("dist/src/main.js"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no Node worker is running"));
        List<ProcessHandle> engines = worker.descendants().toList();
        long own = rssKb(worker.pid());
        long total = own + engines.stream().mapToLong(p -> rssKb(p.pid())).sum();
        return own + " " + total + " " + worker.children().count();
    }

    private static long rssKb(long pid) {
        try {
            Matcher rss = RSS_KB.matcher(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
            return rss.find() ? Long.parseLong(rss.group(1)) : 0;
        } catch (IOException gone) {
            return 0;
        }
    }

    static long micros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }
}
