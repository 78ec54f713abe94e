package app.talkide.controlplane.local.runtime;

import app.talkide.controlplane.membership.Memberships;
import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironments;
import app.talkide.controlplane.worker.WorkerLocation;
import app.talkide.controlplane.worker.WorkerLocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Makes a fresh local install usable at once: the {@code demo/dev} tenant-environment exists, the
 * development user may use it, and its embedded worker runs. Idempotent, so every start runs it. It asks
 * the {@link WorkerLocator}, so local mode also starts with another runtime (e.g. against a development
 * cluster with {@code talkide.worker.runtime=kubernetes}).
 */
@Component
@ConditionalOnProperty(name = "talkide.mode", havingValue = "local", matchIfMissing = true)
class LocalDevSeeder {

    private static final Logger log = LoggerFactory.getLogger(LocalDevSeeder.class);

    private final TenantEnvironments tenantEnvironments;
    private final Memberships memberships;
    private final WorkerLocator workers;
    private final LocalDevProperties properties;

    LocalDevSeeder(
            TenantEnvironments tenantEnvironments,
            Memberships memberships,
            WorkerLocator workers,
            LocalDevProperties properties) {
        this.tenantEnvironments = tenantEnvironments;
        this.memberships = memberships;
        this.workers = workers;
        this.properties = properties;
    }

    @EventListener(ApplicationReadyEvent.class)
    void seed() {
        TenantEnvironmentId seeded = TenantEnvironmentId.of(properties.tenant(), properties.env());
        tenantEnvironments.register(seeded);
        memberships.grant(seeded, properties.user());
        WorkerLocation worker = workers.locate(seeded);
        log.info(
                "Local mode: tenant-environment {} for user '{}', worker {} ({}) at {}",
                seeded,
                properties.user(),
                worker.readiness(),
                worker.detail(),
                worker.baseUrl());
    }
}
