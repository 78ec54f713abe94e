package app.talkide.controlplane.system;

import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How this instance runs.
 *
 * @param mode {@code local} (embedded database, development keys, embedded worker and simulator) or
 *     {@code production} (PostgreSQL, keys and credentials from the environment, Kubernetes workers)
 * @param dataDir where local mode keeps its H2 database, development keys and worker session files
 */
@Validated
@ConfigurationProperties("talkide")
public record ControlPlaneProperties(
        @NotNull @DefaultValue("local") RunMode mode,
        @NotNull @DefaultValue("./data") Path dataDir) {

    public boolean isLocal() {
        return mode == RunMode.LOCAL;
    }
}
