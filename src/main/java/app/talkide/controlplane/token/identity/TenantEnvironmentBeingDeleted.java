package app.talkide.controlplane.token.identity;

import app.talkide.controlplane.system.ProblemException;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.springframework.http.HttpStatus;

/** Issuing or rotating an identity token of a tenant-environment that is being deleted or is gone. */
class TenantEnvironmentBeingDeleted extends ProblemException {

    TenantEnvironmentBeingDeleted(TenantEnvironmentId id) {
        super(
                HttpStatus.CONFLICT,
                "tenant-environment-deleted",
                "Tenant-environment is being deleted",
                "Tenant-environment " + id + " is being deleted or is deleted; it gets no new identity tokens.");
    }
}
