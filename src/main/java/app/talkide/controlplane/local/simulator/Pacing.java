package app.talkide.controlplane.local.simulator;

import java.time.Duration;

/**
 * How fast a reply is "generated": a pause before the first delta, then one between deltas. A
 * non-streaming reply waits the same total before it is sent, as a real model would take as long.
 */
record Pacing(Duration firstTokenDelay, Duration chunkDelay) {

    static Pacing of(SimulatorProperties properties, PromptMarkers markers) {
        Duration between = markers.slowDelay() != null ? markers.slowDelay() : properties.chunkDelay();
        return new Pacing(properties.firstTokenDelay(), between);
    }

    void beforeFirstChunk() throws InterruptedException {
        pause(firstTokenDelay);
    }

    void betweenChunks() throws InterruptedException {
        pause(chunkDelay);
    }

    /** What streaming {@code chunks} deltas would take. */
    Duration total(int chunks) {
        return firstTokenDelay.plus(chunkDelay.multipliedBy(Math.max(0, chunks - 1)));
    }

    static void pause(Duration duration) throws InterruptedException {
        if (duration.isPositive()) {
            Thread.sleep(duration);
        }
    }
}
