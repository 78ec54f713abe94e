package app.talkide.controlplane.workercontract;

import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance test against the Node worker ({@code worker/}) started as a child process, with its
 * scripted agent and a WireMock control plane. Needs Node.js 20+ and npm; builds the worker if needed.
 */
class NodeWorkerConformanceTest extends WorkerContractConformanceTest {

    /** Hides the parent's start: JUnit runs this one instead, with the same tests. */
    @BeforeAll
    static void start() {
        worker = WorkerUnderTest.node();
        try {
            schemas = loadSchemas(java.nio.file.Path.of("docs/worker-events"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
