package app.talkide.controlplane.worker.stream;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Component;

/**
 * Wakes a waiting delivery the moment this replica sees a turn end, instead of having it poll the worker.
 * Take {@link #next} before sending, so an end that comes between the send and the wait is not missed.
 */
@Component
public class TurnEnds {

    /** A turn end to wait for. */
    public record Waiter(CompletableFuture<Void> future) {

        /** Waits until a turn ends or the timeout passes; true if a turn ended. */
        public boolean await(Duration timeout) throws InterruptedException {
            try {
                future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                return true;
            }
        }
    }

    private final Map<UUID, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();

    public Waiter next(UUID conversationId) {
        return new Waiter(pending.computeIfAbsent(conversationId, id -> new CompletableFuture<>()));
    }

    void ended(UUID conversationId) {
        CompletableFuture<Void> waiting = pending.remove(conversationId);
        if (waiting != null) {
            waiting.complete(null);
        }
    }
}
