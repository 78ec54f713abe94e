package app.talkide.controlplane.local.referenceworker;

import java.io.Closeable;
import java.io.IOException;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** A turn in progress, and the handles needed to stop it: its thread and its open model stream. */
final class RunningTurn {

    private final UUID turnId = UUID.randomUUID();
    private final String messageId;
    private volatile @Nullable Thread thread;
    private volatile @Nullable Closeable upstream;
    private volatile boolean interrupted;
    private volatile boolean abandoned;

    /** The W3C trace context of the command that started the turn; its calls back continue it. */
    private final @Nullable String traceparent;

    RunningTurn(String messageId) {
        this(messageId, null);
    }

    RunningTurn(String messageId, @Nullable String traceparent) {
        this.messageId = messageId;
        this.traceparent = traceparent;
    }

    @Nullable
    String traceparent() {
        return traceparent;
    }

    UUID id() {
        return turnId;
    }

    String messageId() {
        return messageId;
    }

    void runOn(Thread runner) {
        this.thread = runner;
        // A stop that came before the thread was known could not interrupt it; without this check the
        // turn would still call the model (and spend) for a user who stopped it or a worker going away.
        if (interrupted || abandoned) {
            runner.interrupt();
        }
    }

    /** The model response being read; closing it is how an interrupt stops a blocked read at once. */
    void reading(@Nullable Closeable stream) {
        this.upstream = stream;
        if (stream != null && (interrupted || abandoned)) {
            closeQuietly(stream);
        }
    }

    /** The user asked to stop: the turn ends with {@code turn.failed} / {@code interrupted}. */
    void interrupt() {
        interrupted = true;
        stop();
    }

    /** The worker is going away: the turn just stops, as it would in a killed process. */
    void abandon() {
        abandoned = true;
        stop();
    }

    boolean isInterrupted() {
        return interrupted;
    }

    boolean isAbandoned() {
        return abandoned;
    }

    private void stop() {
        Closeable stream = upstream;
        if (stream != null) {
            closeQuietly(stream);
        }
        Thread runner = thread;
        if (runner != null) {
            runner.interrupt();
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // Closing is the point; a failure to close a dead stream changes nothing.
        }
    }
}
