package app.talkide.controlplane.provisioning.desired;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin API for tenant-environments and their desired state (role ADMIN, enforced by the security chain).
 * It lives with provisioning rather than in {@code tenant} because it serves the desired state, and
 * {@code tenant} must not depend on provisioning (provisioning depends on it). Names are checked by
 * {@link TenantEnvironmentId} (DNS-1123 labels, namespace ≤ 63 characters): 400 otherwise.
 */
@RestController
@RequestMapping("/api/admin/tenant-environments")
class TenantEnvironmentAdminController {

    private final DesiredStates desiredStates;

    TenantEnvironmentAdminController(DesiredStates desiredStates) {
        this.desiredStates = desiredStates;
    }

    @GetMapping
    List<TenantEnvironmentView> list() {
        return desiredStates.all();
    }

    @GetMapping("/{tenant}/{env}")
    TenantEnvironmentView get(@PathVariable String tenant, @PathVariable String env) {
        return desiredStates.get(TenantEnvironmentId.of(tenant, env));
    }

    /** Creates or changes; an empty body means "the defaults". */
    @PutMapping("/{tenant}/{env}")
    TenantEnvironmentView put(
            @PathVariable String tenant,
            @PathVariable String env,
            @RequestBody(required = false) @Nullable DesiredStateSpec spec) {
        return desiredStates.put(TenantEnvironmentId.of(tenant, env), spec == null ? DesiredStateSpec.DEFAULTS : spec);
    }

    /** 202 while the cluster is being cleaned up ({@code DELETING}), 200 once {@code DELETED}. */
    @DeleteMapping("/{tenant}/{env}")
    ResponseEntity<TenantEnvironmentView> delete(@PathVariable String tenant, @PathVariable String env) {
        TenantEnvironmentView view = desiredStates.delete(TenantEnvironmentId.of(tenant, env));
        HttpStatus status = view.status() == TenantEnvironmentStatus.DELETED ? HttpStatus.OK : HttpStatus.ACCEPTED;
        return ResponseEntity.status(status).body(view);
    }
}
