package app.talkide.controlplane.worker;

import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironment;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentOffers;
import app.talkide.controlplane.tenant.TenantEnvironmentStatus;
import app.talkide.controlplane.tenant.TenantEnvironments;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/me/tenant-environments}: where the signed-in user may start conversations, and whether
 * each one's worker is ready (the console greys out the others). It lives with the workers because it
 * reports their readiness; membership itself stays free of the worker side, which depends on
 * conversations, which depend on membership.
 */
@RestController
class MyTenantEnvironmentsController {

    /** One tenant-environment as its member sees it. */
    record MyTenantEnvironment(
            String tenant, String env, TenantEnvironmentStatus status, WorkerReadiness worker, String workerDetail) {}

    private final Memberships memberships;
    private final TenantEnvironments tenantEnvironments;
    private final WorkerLocator workers;
    private final TenantEnvironmentOffers offers;

    MyTenantEnvironmentsController(
            Memberships memberships,
            TenantEnvironments tenantEnvironments,
            WorkerLocator workers,
            TenantEnvironmentOffers offers) {
        this.offers = offers;
        this.memberships = memberships;
        this.tenantEnvironments = tenantEnvironments;
        this.workers = workers;
    }

    @GetMapping("/api/me/tenant-environments")
    List<MyTenantEnvironment> mine(Principal user) {
        return memberships.tenantEnvironmentsOf(user.getName()).stream()
                // Only what passed its cut-over verification (or an operator opened): docs/builds.md.
                .filter(offers::offered)
                .map(tenantEnvironments::find)
                .flatMap(Optional::stream)
                .map(this::describe)
                .toList();
    }

    private MyTenantEnvironment describe(TenantEnvironment tenantEnvironment) {
        TenantEnvironmentId id = tenantEnvironment.id();
        WorkerLocation worker = workers.locate(id);
        return new MyTenantEnvironment(
                id.tenant(), id.env(), tenantEnvironment.status(), worker.readiness(), worker.detail());
    }
}
