package app.talkide.controlplane.provisioning.schedule;

import java.time.Duration;

/** Doubling waits between retries, capped. */
final class Backoff {

    private Backoff() {}

    static Duration after(int failures, Duration initial, Duration max) {
        int doublings = Math.min(Math.max(failures - 1, 0), 30);
        Duration wait = initial.multipliedBy(1L << doublings);
        return wait.compareTo(max) > 0 ? max : wait;
    }
}
