package app.talkide.controlplane.bench;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The application as packaged, plus a few bench-only routes under {@code /api/bench} (registered here,
 * not component-scanned, so no test context ever sees them): create a conversation, append events to it
 * at a fixed rate (each carrying its append time), sustained persistence, heap after GC. Run in its own
 * JVM so that its heap is the server's alone.
 */
public final class ConversationBenchServer {

    static final TenantEnvironmentId BENCH = TenantEnvironmentId.of("bench", "dev");

    public static void main(String[] args) {
        new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers((GenericApplicationContext context) ->
                        context.registerBean("benchRoutes", RouterFunction.class, () -> routes(context)))
                .run(args);
    }

    static RouterFunction<ServerResponse> routes(GenericApplicationContext context) {
        return RouterFunctions.route()
                .POST("/api/bench/conversations", request -> {
                    String owner = request.principal().orElseThrow().getName();
                    context.getBean(TenantEnvironments.class).register(BENCH);
                    // Only members of the conversation's tenant-environment may read it, as for a real owner.
                    context.getBean(Memberships.class).grant(BENCH, owner);
                    UUID id = context.getBean(Conversations.class)
                            .start(BENCH, owner, "bench")
                            .id();
                    return ServerResponse.ok().body(id.toString());
                })
                .POST("/api/bench/conversations/{id}/emit", request -> emit(context, request))
                .POST("/api/bench/persist", request -> persist(context, request))
                .GET("/api/bench/heap", request -> ServerResponse.ok().body(String.valueOf(heapAfterGc())))
                .GET("/api/bench/cpu", request -> ServerResponse.ok().body(String.valueOf(cpuNanos())))
                .build();
    }

    /**
     * Appends {@code rate} events per second for {@code seconds}, one append per event, paced; each append
     * on its own virtual thread, so that appends waiting for a commit do not hold back the pace (they are
     * committed together, as several conversations' streams would be).
     */
    private static ServerResponse emit(GenericApplicationContext context, ServerRequest request) {
        UUID id = UUID.fromString(request.pathVariable("id"));
        int rate = Integer.parseInt(request.param("rate").orElse("1000"));
        int seconds = Integer.parseInt(request.param("seconds").orElse("10"));
        ConversationEventLog log = context.getBean(ConversationEventLog.class);
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long start = System.nanoTime();
        int total = rate * seconds;
        try (ExecutorService appenders = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < total; i++) {
                long due = start + i * interval;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                appenders.execute(() -> log.append(
                        id, List.of(new NewConversationEvent("bench.tick", "{\"t\":" + micros() + "}", null))));
            }
        }
        return ServerResponse.ok().body(String.valueOf(total));
    }

    /** Appenders each append one event at a time to their own conversation, as fast as the log takes them. */
    private static ServerResponse persist(GenericApplicationContext context, ServerRequest request) throws Exception {
        int appenders = Integer.parseInt(request.param("appenders").orElse("64"));
        int seconds = Integer.parseInt(request.param("seconds").orElse("10"));
        String owner = request.principal().orElseThrow().getName();
        context.getBean(TenantEnvironments.class).register(BENCH);
        ConversationEventLog log = context.getBean(ConversationEventLog.class);
        List<UUID> conversations = new ArrayList<>();
        for (int i = 0; i < appenders; i++) {
            conversations.add(context.getBean(Conversations.class)
                    .start(BENCH, owner, "persist")
                    .id());
        }
        LongAdder appended = new LongAdder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (UUID conversation : conversations) {
                running.add(pool.submit(() -> {
                    while (System.nanoTime() < deadline) {
                        log.append(
                                conversation,
                                List.of(new NewConversationEvent("text.delta", "{\"text\":\"word \"}", null)));
                        appended.increment();
                    }
                }));
            }
            for (Future<?> future : running) {
                future.get();
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return ServerResponse.ok().body(String.format("%d %.2f", appended.sum(), elapsed));
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** CPU time this process used so far, all threads: what a phase cost, whatever else runs on the machine. */
    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static long micros() {
        Instant now = Instant.now();
        return ChronoUnit.MICROS.between(Instant.EPOCH, now);
    }
}
