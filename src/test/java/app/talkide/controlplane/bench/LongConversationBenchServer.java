package app.talkide.controlplane.bench;

import app.talkide.controlplane.ControlPlaneApplication;
import app.talkide.controlplane.conversation.ConversationEventLog;
import app.talkide.controlplane.conversation.Conversations;
import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.conversation.compaction.LogCompactor;
import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * {@link ConversationBenchServer} plus routes for long conversations: build one of N turns of D deltas
 * through the event log's append (the group commit the worker stream consumer uses, a chunk of deltas per
 * append as the consumer takes what has arrived), append one more turn and time it, compact, and measure
 * the log's size on PostgreSQL.
 */
public final class LongConversationBenchServer {

    private static final AtomicInteger TURN_IDS = new AtomicInteger();

    public static void main(String[] args) {
        new SpringApplicationBuilder(ControlPlaneApplication.class)
                .initializers((GenericApplicationContext context) -> context.registerBean(
                        "benchRoutes",
                        RouterFunction.class,
                        () -> ConversationBenchServer.routes(context).and(routes(context))))
                .run(args);
    }

    private static RouterFunction<ServerResponse> routes(GenericApplicationContext context) {
        return RouterFunctions.route()
                .POST("/api/bench/long", request -> {
                    String owner = request.principal().orElseThrow().getName();
                    context.getBean(TenantEnvironments.class).register(ConversationBenchServer.BENCH);
                    context.getBean(Memberships.class).grant(ConversationBenchServer.BENCH, owner);
                    UUID id = context.getBean(Conversations.class)
                            .start(ConversationBenchServer.BENCH, owner, "long")
                            .id();
                    int turns = intParam(request, "turns", 30);
                    long start = System.nanoTime();
                    long events = 0;
                    for (int t = 0; t < turns; t++) {
                        events += appendTurn(context, id, request, t == turns - 1);
                    }
                    return ServerResponse.ok().body(id + " " + rate(events, start));
                })
                .POST("/api/bench/long/{id}/turn", request -> {
                    UUID id = UUID.fromString(request.pathVariable("id"));
                    long start = System.nanoTime();
                    long events = appendTurn(context, id, request, true);
                    return ServerResponse.ok().body(rate(events, start));
                })
                .POST("/api/bench/long/{id}/compact", request -> {
                    long start = System.nanoTime();
                    int turns =
                            context.getBean(LogCompactor.class).compact(UUID.fromString(request.pathVariable("id")));
                    return ServerResponse.ok().body(turns + " " + (System.nanoTime() - start) / 1_000_000);
                })
                .GET("/api/bench/long/size", request -> ServerResponse.ok().body(size(context)))
                .build();
    }

    /**
     * One turn as a worker streams it: message, start, D deltas of a word each, the end; appended a chunk
     * at a time. The last turn's final delta names it, so a browser can tell when it shows.
     */
    private static long appendTurn(GenericApplicationContext context, UUID id, ServerRequest request, boolean last) {
        ConversationEventLog log = context.getBean(ConversationEventLog.class);
        int deltas = intParam(request, "deltas", 300);
        int chunk = intParam(request, "chunk", 50);
        int n = TURN_IDS.incrementAndGet();
        String turn = "\"turnId\":\"t" + n + "\",\"messageId\":\"m" + n + "\"";
        List<NewConversationEvent> events = new ArrayList<>();
        events.add(new NewConversationEvent(
                "message.accepted",
                "{\"messageId\":\"m" + n + "\",\"clientMessageId\":\"c" + n + "\",\"text\":\"Question " + n + "\"}",
                null));
        events.add(new NewConversationEvent("turn.started", "{" + turn + "}", "w-" + n + "-0"));
        for (int d = 1; d <= deltas; d++) {
            String text = d == deltas && last ? "end-of-turn-" + n : "word" + (d % 10) + " ";
            events.add(new NewConversationEvent(
                    "text.delta", "{" + turn + ",\"text\":\"" + text + "\"}", "w-" + n + "-" + d));
        }
        events.add(new NewConversationEvent(
                "turn.completed",
                "{" + turn + ",\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":900,\"outputTokens\":" + deltas
                        + "}}",
                "w-" + n + "-end"));
        for (int i = 0; i < events.size(); i += chunk) {
            log.append(id, events.subList(i, Math.min(events.size(), i + chunk)));
        }
        return events.size();
    }

    /**
     * The event table's size with its indexes after {@code VACUUM FULL} (deleted rows' space given back),
     * the rows, and the text the text blocks and deltas hold (the latency runs' ticks deleted first).
     */
    private static String size(GenericApplicationContext context) {
        JdbcClient jdbc = context.getBean(JdbcClient.class);
        // The latency runs' ticks are not turns: they go before the log is measured.
        jdbc.sql("delete from conversation_event where type = 'bench.tick'").update();
        jdbc.sql("vacuum full conversation_event").update();
        long bytes = jdbc.sql("select pg_total_relation_size('conversation_event')")
                .query(Long.class)
                .single();
        long rows = jdbc.sql("select count(*) from conversation_event")
                .query(Long.class)
                .single();
        long text = jdbc.sql("""
                        select coalesce(sum(octet_length(cast(data as json) ->> 'text')), 0) from conversation_event
                        where type in ('text.delta', 'text.block')
                        """).query(Long.class).single();
        return bytes + " " + rows + " " + text;
    }

    private static String rate(long events, long startNanos) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        return events + " " + String.format("%.0f", events / seconds);
    }

    private static int intParam(ServerRequest request, String name, int fallback) {
        return request.param(name).map(Integer::parseInt).orElse(fallback);
    }
}
