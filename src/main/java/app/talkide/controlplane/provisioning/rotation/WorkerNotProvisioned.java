package app.talkide.controlplane.provisioning.rotation;

import app.talkide.controlplane.system.ProblemException;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.springframework.http.HttpStatus;

/** A rotation was asked for a tenant-environment whose worker Secret does not exist (yet). */
class WorkerNotProvisioned extends ProblemException {

    WorkerNotProvisioned(TenantEnvironmentId id) {
        super(
                HttpStatus.CONFLICT,
                "worker-not-provisioned",
                "Worker not provisioned",
                "The worker of " + id + " has no token Secret yet; it gets a fresh token when it is provisioned.");
    }
}
