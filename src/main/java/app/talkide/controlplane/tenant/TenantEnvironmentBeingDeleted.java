package app.talkide.controlplane.tenant;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** Something refused because the tenant-environment is being deleted (or, where that matters too, is deleted). */
public class TenantEnvironmentBeingDeleted extends ProblemException {

    /** @param refused what it does not get now, and what to do instead, as a sentence */
    public TenantEnvironmentBeingDeleted(TenantEnvironmentId id, TenantEnvironmentStatus status, String refused) {
        super(
                HttpStatus.CONFLICT,
                "tenant-environment-being-deleted",
                "Tenant-environment is being deleted",
                "Tenant-environment " + id + " is "
                        + (status == TenantEnvironmentStatus.DELETED ? "deleted" : "being deleted") + "; " + refused);
    }
}
