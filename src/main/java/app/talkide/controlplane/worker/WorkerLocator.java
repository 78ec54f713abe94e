package app.talkide.controlplane.worker;

import app.talkide.controlplane.tenant.TenantEnvironmentId;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The worker side's one way to find a worker: asks the active {@link WorkerRuntime}, selected by
 * {@code talkide.worker.runtime}. If no runtime of that name is present (e.g. {@code kubernetes} in a build
 * without provisioning), the application still starts, says so at WARN, and every worker is
 * "unavailable" with that reason: users see it as {@code worker.status}, nothing is lost, and delivery
 * resumes once a runtime is there.
 */
@Component
public class WorkerLocator {

    private static final Logger log = LoggerFactory.getLogger(WorkerLocator.class);

    private final ObjectProvider<WorkerRuntime> runtimes;
    private final WorkerProperties properties;

    WorkerLocator(ObjectProvider<WorkerRuntime> runtimes, WorkerProperties properties) {
        this.runtimes = runtimes;
        this.properties = properties;
    }

    public WorkerLocation locate(TenantEnvironmentId tenantEnvironment) {
        WorkerRuntime runtime = runtimes.getIfUnique();
        if (runtime == null) {
            return new WorkerLocation(
                    tenantEnvironment,
                    URI.create("http://127.0.0.1:0"),
                    WorkerReadiness.UNAVAILABLE,
                    "No worker runtime '" + properties.runtime() + "' is available in this control plane.");
        }
        return runtime.locate(tenantEnvironment);
    }

    @EventListener(ApplicationReadyEvent.class)
    void warnIfMissing() {
        if (runtimes.getIfUnique() == null) {
            log.warn(
                    "No worker runtime '{}' is available (talkide.worker.runtime): workers cannot be reached,"
                            + " messages wait in the outbox",
                    properties.runtime());
        }
    }
}
