package app.talkide.controlplane.gate;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A verification runs once the worker is ready after its desired state changed, and only then. */
class WorkerChangeTriggerTest {

    static final TenantEnvironmentId ACME = TenantEnvironmentId.of("acme", "prod");
    static final GateProperties ON = new GateProperties(true, Duration.ofMinutes(3), Duration.ofMinutes(20), true);

    final CutoverGate gate = mock(CutoverGate.class);

    @Test
    void aChangeIsVerifiedOnceWhenTheWorkerIsReadyAgain() {
        WorkerChangeTrigger trigger = new WorkerChangeTrigger(gate, ON);
        trigger.on(new DesiredStateChanged(ACME));
        trigger.on(new WorkerReadinessChanged(ACME, WorkerReadiness.STARTING, "rolling"));
        verify(gate, never()).start(ACME, "worker_changed", "control-plane");

        trigger.on(new WorkerReadinessChanged(ACME, WorkerReadiness.READY, ""));
        trigger.on(new WorkerReadinessChanged(ACME, WorkerReadiness.READY, ""));

        verify(gate, times(1)).start(ACME, "worker_changed", "control-plane");
    }

    @Test
    void readinessWithoutAChangeOrWithTheTriggerOffRunsNothing() {
        new WorkerChangeTrigger(gate, ON).on(new WorkerReadinessChanged(ACME, WorkerReadiness.READY, ""));
        WorkerChangeTrigger off = new WorkerChangeTrigger(
                gate, new GateProperties(true, Duration.ofMinutes(3), Duration.ofMinutes(20), false));
        off.on(new DesiredStateChanged(ACME));
        off.on(new WorkerReadinessChanged(ACME, WorkerReadiness.READY, ""));

        verifyNoInteractions(gate);
    }
}
