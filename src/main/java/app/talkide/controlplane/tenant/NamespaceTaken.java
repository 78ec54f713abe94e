package app.talkide.controlplane.tenant;

import app.talkide.controlplane.system.ProblemException;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;

/**
 * Another tenant-environment already has this one's Kubernetes namespace: {@code a-b/c} and {@code a/b-c}
 * both make {@code a-b-c}. The first keeps it, even once deleted (its name can be brought back).
 */
public class NamespaceTaken extends ProblemException {

    NamespaceTaken(TenantEnvironmentId id, @Nullable TenantEnvironmentId holder) {
        super(
                HttpStatus.CONFLICT,
                "namespace-taken",
                "Namespace already taken",
                "'" + id + "' would have the Kubernetes namespace '" + id.namespace() + "', which "
                        + (holder == null ? "another tenant-environment" : "'" + holder + "'")
                        + " already has; choose another tenant or env name");
    }
}
