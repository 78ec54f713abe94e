package app.talkide.controlplane.tenant;

import app.talkide.controlplane.system.ProblemException;
import org.springframework.http.HttpStatus;

/** A tenant or env name that cannot become a Kubernetes namespace. */
public class InvalidTenantEnvironmentName extends ProblemException {

    public InvalidTenantEnvironmentName(String detail) {
        super(HttpStatus.BAD_REQUEST, "invalid-tenant-environment-name", "Invalid tenant-environment name", detail);
    }
}
