package app.talkide.controlplane.gate;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import app.talkide.controlplane.tenant.TenantEnvironmentOffers;
import app.talkide.controlplane.tenant.TenantEnvironments;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Runs cut-over verifications (each on a virtual thread of its own), records operator overrides, and
 * decides whether a tenant-environment is offered: the newest decision must be a pass or an override.
 */
@Service
class CutoverGate implements TenantEnvironmentOffers {

    private static final Logger log = LoggerFactory.getLogger(CutoverGate.class);
    private static final Set<String> OPEN = Set.of("PASSED", "OVERRIDDEN");

    private final VerificationRepository repository;
    private final GateRun run;
    private final TenantEnvironments tenantEnvironments;
    private final GateProperties properties;
    private final Clock clock;
    private final ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor();

    CutoverGate(
            VerificationRepository repository,
            GateRun run,
            TenantEnvironments tenantEnvironments,
            GateProperties properties,
            Clock clock) {
        this.repository = repository;
        this.run = run;
        this.tenantEnvironments = tenantEnvironments;
        this.properties = properties;
        this.clock = clock;
    }

    Verification start(TenantEnvironmentId in, String cause, @Nullable String requestedBy) {
        tenantEnvironments.get(in);
        Verification started = new Verification(
                UUID.randomUUID(), in.tenant(), in.env(), "RUNNING", cause, null, requestedBy, clock.instant(), null);
        repository.insert(started, in);
        runs.execute(() -> finish(started.id(), in));
        return started;
    }

    private void finish(UUID id, TenantEnvironmentId in) {
        String failure;
        try {
            failure = run.run(id, in);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "the control plane stopped during the verification";
        } catch (RuntimeException e) {
            log.warn("Cut-over verification {} of {} failed unexpectedly", id, in, e);
            failure = "the verification could not run: " + e.getClass().getSimpleName();
        }
        repository.finish(id, failure == null ? "PASSED" : "FAILED", failure, clock.instant());
        log.info("Cut-over verification of {}: {}", in, failure == null ? "passed" : "failed, " + failure);
    }

    Verification override(TenantEnvironmentId in, String operator, String reason) {
        tenantEnvironments.get(in);
        Verification override = new Verification(
                UUID.randomUUID(),
                in.tenant(),
                in.env(),
                "OVERRIDDEN",
                "operator_override",
                reason,
                operator,
                clock.instant(),
                clock.instant());
        repository.insert(override, in);
        log.info("Cut-over gate of {} overridden by {}", in, operator);
        return override;
    }

    List<Verification> history(TenantEnvironmentId in, int limit) {
        tenantEnvironments.get(in);
        return repository.of(in, limit);
    }

    @Override
    public boolean offered(TenantEnvironmentId id) {
        return !properties.required()
                || repository
                        .latestDecision(id)
                        .map(v -> OPEN.contains(v.outcome()))
                        .orElse(false);
    }

    @PreDestroy
    void stop() {
        runs.shutdownNow();
    }
}
