package app.talkide.controlplane.system;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** Says in one line which mode runs, on which database and where, so nobody has to guess. */
@Component
class RunModeAnnouncer {

    private static final Logger log = LoggerFactory.getLogger(RunModeAnnouncer.class);

    private final ControlPlaneProperties properties;
    private final DataSource dataSource;

    RunModeAnnouncer(ControlPlaneProperties properties, DataSource dataSource) {
        this.properties = properties;
        this.dataSource = dataSource;
    }

    @EventListener
    void announce(ApplicationReadyEvent event) {
        String where = event.getApplicationContext() instanceof WebServerApplicationContext web
                ? "port " + web.getWebServer().getPort()
                : "no web server";
        if (properties.isLocal()) {
            log.info(
                    "TalkIDE control plane running in LOCAL mode on {}: {} database, development keys and data under {}"
                            + " (not for production: set SPRING_PROFILES_ACTIVE=production)",
                    where,
                    databaseProduct(),
                    properties.dataDir().toAbsolutePath().normalize());
        } else {
            log.info("TalkIDE control plane running in PRODUCTION mode on {}: {} database", where, databaseProduct());
        }
    }

    private String databaseProduct() {
        try (Connection connection = dataSource.getConnection()) {
            return connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            return "unreachable";
        }
    }
}
