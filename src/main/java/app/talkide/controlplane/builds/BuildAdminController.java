package app.talkide.controlplane.builds;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/admin/tenant-environments/{tenant}/{env}/builds}: a tenant-environment's builds, newest
 * first, with state, queue position and duration: the newest {@code limit} (1–200, default 50).
 */
@RestController
@RequestMapping("/api/admin/tenant-environments/{tenant}/{env}/builds")
class BuildAdminController {

    private final Builds builds;
    private final TenantEnvironments tenantEnvironments;

    BuildAdminController(Builds builds, TenantEnvironments tenantEnvironments) {
        this.builds = builds;
        this.tenantEnvironments = tenantEnvironments;
    }

    @GetMapping
    List<BuildView> list(
            @PathVariable String tenant, @PathVariable String env, @RequestParam(defaultValue = "50") int limit) {
        TenantEnvironmentId id = TenantEnvironmentId.of(tenant, env);
        tenantEnvironments.get(id);
        return builds.ofTenantEnvironment(id, 0, Math.clamp(limit, 1, 200));
    }
}
