package app.talkide.controlplane.tenant;

import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin API for tenant-environments (role ADMIN, enforced by the security chain). */
@RestController
@RequestMapping("/api/admin/tenant-environments")
class TenantEnvironmentAdminController {

    private final TenantEnvironments tenantEnvironments;

    TenantEnvironmentAdminController(TenantEnvironments tenantEnvironments) {
        this.tenantEnvironments = tenantEnvironments;
    }

    @GetMapping
    List<TenantEnvironment> list() {
        return tenantEnvironments.all();
    }

    @GetMapping("/{tenant}/{env}")
    TenantEnvironment get(@PathVariable String tenant, @PathVariable String env) {
        return tenantEnvironments.get(TenantEnvironmentId.of(tenant, env));
    }

    @PutMapping("/{tenant}/{env}")
    TenantEnvironment register(@PathVariable String tenant, @PathVariable String env) {
        return tenantEnvironments.register(TenantEnvironmentId.of(tenant, env));
    }
}
