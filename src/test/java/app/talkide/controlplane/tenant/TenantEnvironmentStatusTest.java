package app.talkide.controlplane.tenant;

import static app.talkide.controlplane.tenant.TenantEnvironmentStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.ApplicationWithoutWebTest;
import app.talkide.controlplane.support.DatabaseTest;
import app.talkide.controlplane.support.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

/**
 * The two writers of a tenant-environment's status: the reconciler (with reasons, and the teardown's
 * DELETING) and what is observed of the worker, which must never undo a teardown or erase a reason.
 */
@DatabaseTest
@ApplicationWithoutWebTest
class TenantEnvironmentStatusTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    TenantEnvironments tenantEnvironments;

    @Test
    void anObservedWorkerChangesTheStatusOnlyWhenItDiffers() {
        TenantEnvironmentId id = Fixtures.tenantEnvironment(context);

        assertThat(tenantEnvironments.observeWorker(id, READY)).isTrue();
        assertThat(tenantEnvironments.observeWorker(id, READY)).isFalse();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(READY);
    }

    @Test
    void aReasonGivenForTheSameStatusStays() {
        TenantEnvironmentId id = Fixtures.tenantEnvironment(context);
        tenantEnvironments.changeStatus(id, DEGRADED, "namespace exists and is not managed by us");

        assertThat(tenantEnvironments.observeWorker(id, DEGRADED)).isFalse();
        assertThat(tenantEnvironments.get(id).statusReason()).isEqualTo("namespace exists and is not managed by us");
    }

    @Test
    void aWorkerSeenGoingAwayNeverUndoesATeardown() {
        TenantEnvironmentId id = Fixtures.tenantEnvironment(context);
        tenantEnvironments.changeStatus(id, DELETING, "deletion requested");

        assertThat(tenantEnvironments.observeWorker(id, DEGRADED)).isFalse();
        assertThat(tenantEnvironments.observeWorker(id, READY)).isFalse();
        assertThat(tenantEnvironments.get(id).status()).isEqualTo(DELETING);
    }

    @Test
    void aTeardownRacingWithObservationsEndsDeleting() throws Exception {
        for (int round = 0; round < 20; round++) {
            TenantEnvironmentId id = Fixtures.tenantEnvironment(context);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> writers = new ArrayList<>();
            try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
                for (TenantEnvironmentStatus observed : List.of(READY, DEGRADED, PROVISIONING)) {
                    writers.add(pool.submit(() -> {
                        if (!go.await(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("timed out waiting for go");
                        }
                        return tenantEnvironments.observeWorker(id, observed);
                    }));
                }
                writers.add(pool.submit(() -> {
                    if (!go.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("timed out waiting for go");
                    }
                    return tenantEnvironments.changeStatus(id, DELETING, "deletion requested");
                }));
                go.countDown();
                for (Future<?> writer : writers) {
                    writer.get(30, TimeUnit.SECONDS);
                }
            }
            assertThat(tenantEnvironments.get(id).status()).isEqualTo(DELETING);
        }
    }
}
