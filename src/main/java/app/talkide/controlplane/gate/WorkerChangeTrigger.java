package app.talkide.controlplane.gate;

import app.talkide.controlplane.provisioning.DesiredStateChanged;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.worker.WorkerReadiness;
import app.talkide.controlplane.worker.WorkerReadinessChanged;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Verifies a tenant-environment again once its worker is ready after its desired state changed (a new
 * worker image rolls the worker): the change marks it, the next readiness runs the verification. Every
 * replica that saw the change may run one; two passes are harmless, the newest decides.
 */
@Component
class WorkerChangeTrigger {

    private final CutoverGate gate;
    private final GateProperties properties;
    private final Set<TenantEnvironmentId> changed = ConcurrentHashMap.newKeySet();

    WorkerChangeTrigger(CutoverGate gate, GateProperties properties) {
        this.gate = gate;
        this.properties = properties;
    }

    @EventListener
    void on(DesiredStateChanged change) {
        if (properties.afterWorkerChange()) {
            changed.add(change.tenantEnvironment());
        }
    }

    @EventListener
    void on(WorkerReadinessChanged readiness) {
        if (readiness.readiness() == WorkerReadiness.READY && changed.remove(readiness.tenantEnvironment())) {
            gate.start(readiness.tenantEnvironment(), "worker_changed", "control-plane");
        }
    }
}
