package app.talkide.controlplane.worker.stream;

import app.talkide.controlplane.conversation.NewConversationEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether a worker stream is worth keeping open: a turn is running, or one ended or was asked for less than
 * {@code idleRelease} ago. An idle stream is released, so a replica does not hold streams nobody uses.
 */
final class TurnActivity {

    private final Duration idleRelease;
    private final Clock clock;
    private volatile Instant idleSince;
    private volatile boolean turnRunning;

    TurnActivity(Duration idleRelease, Clock clock) {
        this.idleRelease = idleRelease;
        this.clock = clock;
        this.idleSince = clock.instant();
    }

    /** Follows the turns in the events as they are read. */
    void saw(NewConversationEvent event) {
        switch (event.type()) {
            case "turn.started" -> turnRunning = true;
            case "turn.completed", "turn.failed" -> {
                turnRunning = false;
                idleSince = clock.instant();
            }
            default -> {}
        }
    }

    /** Something new was asked of this stream: the idle period starts over. */
    void touched() {
        idleSince = clock.instant();
    }

    /** No turn is running and none has for {@code idleRelease}. */
    boolean isIdle() {
        return !turnRunning && Duration.between(idleSince, clock.instant()).compareTo(idleRelease) >= 0;
    }
}
