package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.system.ProblemException;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.springframework.http.HttpStatus;

/** A desired state set while the tenant-environment is still being torn down. */
class TenantEnvironmentBeingDeleted extends ProblemException {

    TenantEnvironmentBeingDeleted(TenantEnvironmentId id) {
        super(
                HttpStatus.CONFLICT,
                "tenant-environment-being-deleted",
                "Tenant-environment is being deleted",
                "The tenant-environment " + id + " is being deleted; set it again once its status is DELETED.");
    }
}
