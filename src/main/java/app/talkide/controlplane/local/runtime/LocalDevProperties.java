package app.talkide.controlplane.local.runtime;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Local mode's seed data and embedded workers.
 *
 * @param tenant the tenant-environment seeded on start: tenant part
 * @param env the tenant-environment seeded on start: env part
 * @param user the development user made a member of the seeded tenant-environment
 * @param workerDir where each embedded worker keeps its Secret ({@code secret/}), sessions ({@code claude/},
 *     its {@code CLAUDE_CONFIG_DIR}) and working tree ({@code workspace/}), in {@code <tenant>-<env>/};
 *     default {@code <talkide.data-dir>/workers}; relative to the directory the control plane runs in
 * @param workerModel the model the embedded workers ask the gateway for
 * @param workerHeartbeat how often an embedded worker's idle event stream carries a heartbeat
 * @param worker which worker runs for the seeded tenant-environment: {@code auto} (the Node worker when
 *     Node ≥ 20 and npm are installed, else the Java reference worker), {@code node} or {@code reference};
 *     every other tenant-environment gets the reference worker
 * @param nodeWorkerDir where the Node worker's sources are (default {@code worker} in the working directory)
 * @param nodeWorkerMaxEngines at most this many engines (turns) the Node worker runs at once, each a few hundred
 *     MB ({@code TALKIDE_WORKER_MAX_ENGINES}); unset: the worker's own default. Beyond it the worker answers
 *     "busy" and the message waits in the queue
 */
@Validated
@ConfigurationProperties("talkide.localdev")
public record LocalDevProperties(
        @NotBlank @DefaultValue("demo") String tenant,
        @NotBlank @DefaultValue("dev") String env,
        @NotBlank @DefaultValue("dev") String user,
        @Nullable Path workerDir,
        @NotBlank @DefaultValue("claude-sonnet-4-5") String workerModel,
        @NotNull @DefaultValue("15s") Duration workerHeartbeat,

        @NotBlank @Pattern(regexp = "auto|node|reference") @DefaultValue("auto")
        String worker,

        @Nullable Path nodeWorkerDir,
        @Nullable @Positive Integer nodeWorkerMaxEngines) {}
