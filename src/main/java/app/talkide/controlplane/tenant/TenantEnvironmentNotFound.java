package app.talkide.controlplane.tenant;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** No tenant-environment of that name is known. */
public class TenantEnvironmentNotFound extends ProblemException {

    public TenantEnvironmentNotFound(TenantEnvironmentId id) {
        super(
                HttpStatus.NOT_FOUND,
                "tenant-environment-not-found",
                "Tenant-environment not found",
                "There is no tenant-environment " + id + ".");
    }
}
