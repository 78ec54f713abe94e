package app.talkide.controlplane.provisioning.objects;

import app.talkide.controlplane.provisioning.ManagedNames;
import app.talkide.controlplane.provisioning.desired.DesiredState;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/**
 * Service {@code talkide-worker}, port 8080: the stable address
 * {@code http://talkide-worker.{tenant}-{env}.svc.cluster.local:8080} the control plane commands the worker at.
 */
public final class WorkerServiceBuilder {

    public static Service build(TenantEnvironmentId id, DesiredState desired) {
        return new ServiceBuilder()
                .withMetadata(ManagedMetadata.of(id, desired, ManagedNames.WORKER))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(ManagedMetadata.workerSelector(id))
                .addNewPort()
                .withName("http")
                .withProtocol("TCP")
                .withPort(ManagedNames.WORKER_PORT)
                .withTargetPort(new IntOrString("http"))
                .endPort()
                .endSpec()
                .build();
    }

    private WorkerServiceBuilder() {}
}
