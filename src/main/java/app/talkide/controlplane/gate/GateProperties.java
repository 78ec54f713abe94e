package app.talkide.controlplane.gate;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The cut-over gate.
 *
 * @param required whether a tenant-environment is offered to users only after a passed verification (or an
 *     override); local mode turns it off in {@code application.yaml}
 * @param turnTimeout how long the verification waits for the worker's answer
 * @param buildTimeout how long it waits for its build, where builds are enabled
 * @param afterWorkerChange whether a verification runs when a worker becomes ready after its tenant-environment's
 *     desired state (e.g. its worker image) changed
 */
@Validated
@ConfigurationProperties("talkide.gate")
public record GateProperties(
        @DefaultValue("true") boolean required,
        @NotNull @DefaultValue("3m") Duration turnTimeout,
        @NotNull @DefaultValue("20m") Duration buildTimeout,
        @DefaultValue("true") boolean afterWorkerChange) {}
