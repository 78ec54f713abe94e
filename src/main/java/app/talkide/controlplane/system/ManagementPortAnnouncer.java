package app.talkide.controlplane.system;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Says at start-up where probes and metrics are: they moved off the application port, and whoever points a
 * Prometheus at a laptop's instance should not have to guess.
 */
@Component
class ManagementPortAnnouncer {

    private static final Logger log = LoggerFactory.getLogger(ManagementPortAnnouncer.class);

    private final Environment environment;

    ManagementPortAnnouncer(Environment environment) {
        this.environment = environment;
    }

    @EventListener
    void announce(WebServerInitializedEvent event) {
        if ("management".equals(event.getApplicationContext().getServerNamespace())) {
            String address = environment.getProperty("management.server.address", "0.0.0.0");
            log.info(
                    "Metrics and probes on the management port: http://{}:{}/actuator/prometheus"
                            + " (probes: /actuator/health/liveness, /actuator/health/readiness)",
                    address,
                    event.getWebServer().getPort());
        }
    }
}
