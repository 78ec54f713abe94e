package app.talkide.controlplane.local.referenceworker;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One open {@code GET /sessions/{id}/stream}: a bounded queue the session fills and this connection's
 * thread drains onto the socket, flushing every event. A subscriber that falls too far behind is
 * dropped (its connection closes) rather than buffered without bound; it reconnects with its
 * {@code Last-Event-ID} and loses nothing.
 */
final class StreamSubscriber {

    static final int QUEUE_CAPACITY = 10_000;
    private static final WorkerEvent END = new WorkerEvent("", "", HttpExchanges.JSON.createObjectNode());

    private final BlockingQueue<WorkerEvent> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY + 1);
    private volatile boolean ended;

    /** Called under the session lock; false means "drop me". */
    boolean offer(WorkerEvent event) {
        if (ended) {
            return false;
        }
        if (!queue.offer(event)) {
            end();
            return false;
        }
        return true;
    }

    void end() {
        ended = true;
        queue.clear();
        queue.offer(END);
    }

    /** Writes the backlog, then live events, until the session ends or the client goes away. */
    void pump(List<WorkerEvent> backlog, OutputStream out, Duration heartbeat) throws IOException {
        out.write("retry: 1000\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        for (WorkerEvent event : backlog) {
            write(out, event);
        }
        try {
            while (true) {
                WorkerEvent event = queue.poll(heartbeat.toMillis(), TimeUnit.MILLISECONDS);
                if (event == END) {
                    return;
                }
                if (event == null) {
                    // A comment line: keeps idle connections alive and reveals a vanished client.
                    out.write(": ping\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } else {
                    write(out, event);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(OutputStream out, WorkerEvent event) throws IOException {
        out.write(event.sseFrame().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
