package app.talkide.controlplane.tenant;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** The tenant-environment has not passed its cut-over verification, and no operator override is recorded. */
public class TenantEnvironmentNotOffered extends ProblemException {

    public TenantEnvironmentNotOffered(TenantEnvironmentId id) {
        super(
                HttpStatus.CONFLICT,
                "tenant-environment-not-verified",
                "Tenant-environment not verified yet",
                "The tenant-environment " + id + " is not open to users until its cut-over verification passed.");
    }
}
