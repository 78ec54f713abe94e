package app.talkide.controlplane.membership;

import app.talkide.controlplane.system.ProblemException;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import org.springframework.http.HttpStatus;

/** The user is not a member of the tenant-environment, so there is nothing to revoke. */
class MembershipNotFound extends ProblemException {

    MembershipNotFound(TenantEnvironmentId tenantEnvironment) {
        super(
                HttpStatus.NOT_FOUND,
                "membership-not-found",
                "Membership not found",
                "That user is not a member of " + tenantEnvironment + ".");
    }
}
