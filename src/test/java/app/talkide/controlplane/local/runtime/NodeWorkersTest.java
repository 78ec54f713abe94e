package app.talkide.controlplane.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which worker local mode runs: the Node worker only for the seeded tenant-environment, and only if it can. */
class NodeWorkersTest {

    static final TenantEnvironmentId DEMO = TenantEnvironmentId.of("demo", "dev");

    @Test
    void withoutTheNodeWorkersSourcesAutoFallsBackToTheReferenceWorker() {
        NodeWorkers workers = new NodeWorkers(properties("auto", Path.of("/nonexistent/worker")));

        assertThat(workers.runsFor(DEMO)).isFalse();
    }

    @Test
    void askingForTheNodeWorkerWhenItCannotRunStopsWithTheReason() {
        NodeWorkers workers = new NodeWorkers(properties("node", Path.of("/nonexistent/worker")));

        assertThatThrownBy(() -> workers.runsFor(DEMO)).hasMessageContaining("/nonexistent/worker");
    }

    @Test
    void referenceIsAlwaysTheReferenceWorkerAndOtherTenantEnvironmentsNeverGetTheNodeOne() {
        assertThat(new NodeWorkers(properties("reference", Path.of("worker"))).runsFor(DEMO))
                .isFalse();
        assertThat(new NodeWorkers(properties("node", Path.of("worker")))
                        .runsFor(TenantEnvironmentId.of("acme", "dev")))
                .isFalse();
    }

    private static LocalDevProperties properties(String worker, Path nodeWorkerDir) {
        return new LocalDevProperties(
                "demo", "dev", "dev", null, "claude-sonnet-4-5", Duration.ofSeconds(15), worker, nodeWorkerDir, null);
    }
}
