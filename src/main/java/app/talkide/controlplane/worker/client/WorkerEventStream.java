package app.talkide.controlplane.worker.client;

import app.talkide.controlplane.workercontract.SseEventReader;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/** An open {@code GET /sessions/{id}/stream}. Closing it from any thread ends a blocked {@link #next()}. */
public final class WorkerEventStream implements AutoCloseable {

    private final InputStream body;
    private final SseEventReader reader;

    WorkerEventStream(InputStream body) {
        this.body = body;
        this.reader = new SseEventReader(body);
    }

    /** The next event, or null when the worker ended the stream. */
    public SseEventReader.@Nullable SseEvent next() throws IOException {
        return reader.next();
    }

    /** How long the worker has sent nothing at all, heartbeats included. */
    public java.time.Duration silentFor() {
        return java.time.Duration.ofNanos(System.nanoTime() - reader.lastLineNanos());
    }

    @Override
    public void close() {
        try {
            body.close();
        } catch (IOException ignored) {
            // closing a broken stream: nothing more to release
        }
    }
}
