package app.talkide.controlplane.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

/**
 * A fast local Anthropic stand-in for the load harness: answers {@code POST /v1/messages} with a
 * realistic stream (message_start, 50 text deltas, message_delta, message_stop), written and flushed
 * event by event. Header {@code x-stainless-bench-gap-ms} pauses between events and stamps each delta with
 * its send time (for the zero-buffering check); {@code x-stainless-bench-hold} holds the stream open after
 * the first delta until {@link #release()} (for the open-streams check). Both are named {@code x-stainless-*}
 * because the gateway passes only allow-listed headers upstream, the SDKs' {@code x-stainless-*} among them.
 */
final class BenchUpstream implements AutoCloseable {

    static final int DELTAS = 50;

    private final HttpServer server;
    private volatile CountDownLatch hold = new CountDownLatch(1);

    BenchUpstream() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 2048);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/v1/messages", this::messages);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void release() {
        hold.countDown();
    }

    void rearm() {
        hold = new CountDownLatch(1);
    }

    private void messages(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        String gap = exchange.getRequestHeaders().getFirst("x-stainless-bench-gap-ms");
        boolean holding = exchange.getRequestHeaders().containsKey("x-stainless-bench-hold");
        long gapMillis = gap == null ? 0 : Long.parseLong(gap);
        exchange.getResponseHeaders().add("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().add("request-id", "req_bench");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            send(
                    out,
                    event(
                            "message_start",
                            "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":"
                                    + "\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":"
                                    + "null,\"usage\":{\"input_tokens\":250,\"cache_creation_input_tokens\":0,"
                                    + "\"cache_read_input_tokens\":0,\"output_tokens\":1}}}"));
            send(
                    out,
                    event(
                            "content_block_start",
                            "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                                    + "{\"type\":\"text\",\"text\":\"\"}}"));
            for (int i = 0; i < DELTAS; i++) {
                if (holding && i == 1) {
                    await();
                }
                pause(gapMillis);
                String text = gapMillis > 0 ? "t=" + System.nanoTime() : "Token " + i + " of a short answer ";
                send(
                        out,
                        event(
                                "content_block_delta",
                                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                                        + "{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}"));
            }
            send(out, event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
            send(
                    out,
                    event(
                            "message_delta",
                            "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                                    + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":300}}"));
            send(out, event("message_stop", "{\"type\":\"message_stop\"}"));
        }
    }

    private void await() {
        try {
            hold.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause(long millis) {
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void send(OutputStream out, String event) throws IOException {
        out.write(event.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String event(String type, String data) {
        return "event: " + type + "\ndata: " + data + "\n\n";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
