package app.talkide.controlplane.support;

import app.talkide.controlplane.local.runtime.NodeWorkerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.test.context.DynamicPropertyRegistry;

/** Set-up shared by tests that run the Node worker from {@code worker/} as local mode's child process. */
public final class NodeWorkerTests {

    private NodeWorkerTests() {}

    /** Fails (never skips) without Node 20+ and npm; installs and builds the worker once. */
    public static void requireNodeAndBuildTheWorker() {
        NodeWorkerProcess.missingRuntime().ifPresent(missing -> {
            throw new IllegalStateException("This test runs the Node worker: " + missing);
        });
        NodeWorkerProcess.prepare(Path.of("worker").toAbsolutePath());
    }

    /** A data directory of this test's own, so its worker's Secret, sessions and tree start empty. */
    public static void freshDataDir(DynamicPropertyRegistry registry, String prefix) {
        try {
            Path dataDir = Files.createTempDirectory(prefix);
            registry.add("talkide.data-dir", dataDir::toString);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
